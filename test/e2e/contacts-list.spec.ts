/**
 * The Contacts list at a 1024×700 laptop: an ordinary address fits its column, a long one ends in
 * an ellipsis with the whole address in its title.
 */
import { apiPost, createApiKey, expect, test } from './fixtures.ts';

test('at 1024×700 the contacts list shows an email address whole; a long one keeps it in its title', async ({
  page,
  request,
  server,
}) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  const key = await createApiKey(server, 'test', 'e2e-contacts-list');
  const long = 'alexandra.montgomery-smithson@example-shop.co.uk';
  await apiPost(request, key, '/api/contacts', {
    phone: '+14155553101',
    name: 'Fiona Demo',
    email: 'fiona.demo@example.com',
  });
  await apiPost(request, key, '/api/contacts', {
    phone: '+14155553102',
    name: 'Alexandra Montgomery',
    email: long,
  });
  await page.goto('/#/contacts');
  const rows = page.getByTestId('contact-row');
  await expect(rows).toHaveCount(2);

  const fiona = rows.filter({ hasText: 'Fiona Demo' }).getByTestId('contact-row-email');
  await expect(fiona).toHaveText('fiona.demo@example.com');
  // Not cut: the text fits the cell it is drawn in.
  expect(await fiona.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);

  const alexandra = rows.filter({ hasText: 'Alexandra' }).getByTestId('contact-row-email');
  await expect(alexandra).toHaveAttribute('title', long);
  expect(await alexandra.evaluate((el) => getComputedStyle(el).textOverflow)).toBe('ellipsis');
});
