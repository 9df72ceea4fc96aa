import './app/mantine.css';
import './app/global.css';
import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from './app/app';
import { startFirstScreen } from './app/router';
import { containerOverDrawing, isDrawnForSession, isDrawnForThisVisit } from './lib/drawn-screen';

startFirstScreen(window.location.pathname);
const root = document.getElementById('root');
if (!root) throw new Error('#root is missing from index.html');
const app = (
  <StrictMode>
    <App />
  </StrictMode>
);
// login.html carries the sign-in screen drawn at build time. A first visit's app is that very
// markup: it takes it over (hydrates), what was typed meanwhile included (login-form.tsx). A
// dashboard drawn for a session stays in view until the app's own screen is ready, which then
// replaces it. Any other visit draws its own screen, which replaces the drawn one (never shown to
// it) at its first commit.
const drawn = root.querySelector(':scope > .drawn-screen');
// Either way as a transition: React yields to the browser every few milliseconds instead of holding
// the main thread for the whole tree, so a slow phone stays responsive while the app starts.
startTransition(() => {
  if (drawn && isDrawnForThisVisit() && isDrawnForSession()) {
    createRoot(containerOverDrawing(drawn)).render(app);
  } else if (drawn && isDrawnForThisVisit()) {
    // The drawn screen's wrapper (display: contents) stays as the app's container: not a node moves.
    hydrateRoot(drawn, app);
  } else {
    createRoot(root).render(app);
  }
});
