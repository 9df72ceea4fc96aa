/* global window, document */
// Run before a screen drawn at build time is shown (src/prerender.tsx): marks on <html> what this
// device would show differently, so global.css hides it and src/main.tsx knows whether the app may
// take the drawn screen over. <html data-drawn-for> says for whom it was drawn:
// - visitor (login.html): a first visit, nobody signed in, nothing remembered;
// - session (the dashboards): a person signed in, whose own screen the app draws in its place.
// The keys are those of src/lib/i18n.ts, src/lib/session.ts, src/lib/cookies.ts (the remembered
// CPF) and src/app/layout (the scam warning and the cookie consent).
(function () {
  var html = document.documentElement;
  function stored(area, key) {
    try {
      return window[area].getItem(key);
    } catch {
      return null;
    }
  }
  var language = (stored('sessionStorage', 'portal.language') || 'pt-br').toLowerCase();
  var signedIn = stored('sessionStorage', 'portal.credentials') !== null;
  var other =
    html.getAttribute('data-drawn-for') === 'session'
      ? // Drawn in Brazilian Portuguese for a session: anyone else waits for the app's screen.
        language !== 'pt-br' || !signedIn
      : window.location.search !== '' ||
        language !== 'pt-br' ||
        /(?:^|; )remember=/.test(document.cookie) ||
        signedIn ||
        // A notice brought by the app's own navigation (an old link, an invalid one), kept on reload.
        (window.history.state !== null &&
          typeof window.history.state === 'object' &&
          window.history.state.usr != null) ||
        // The scam warning is shown once per visit: a page reloaded after it was closed is drawn by the app.
        stored('sessionStorage', 'portal.scamWarningSeen') === '1';
  // A dashboard opened again in a session whose profile was last seen incomplete: the prompt too.
  if (signedIn && stored('sessionStorage', 'portal.profileIncomplete') === '1') {
    html.setAttribute('data-profile-incomplete', '');
  }
  // Cookies accepted on an earlier visit: the same screen without the banner.
  if (stored('localStorage', 'portal.cookieConsent') === '"accepted"') html.setAttribute('data-cookies-accepted', '');
  html.setAttribute('data-visit', other ? 'other' : 'first');
})();
