import './app/mantine.css';
import './app/global.css';
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { startFirstScreen } from './app/router';

startFirstScreen(window.location.pathname);
const root = document.getElementById('root');
if (!root) throw new Error('#root is missing from index.html');
// The first render as a transition: React yields to the browser every few milliseconds instead of
// holding the main thread for the whole tree, so a slow phone stays responsive while it starts.
startTransition(() => {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});
