// How every test and bench launches Debian's Chromium (never a downloaded browser): the
// background-networking flags keep it off this machine's closed network.
export const chromiumLaunchOptions = {
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};
