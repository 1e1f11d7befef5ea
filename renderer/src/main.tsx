import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { startHashRouting } from './stores/route.ts';
import './styles.css';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

startHashRouting();

createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
