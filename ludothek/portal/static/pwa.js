/* Ludothek: the service worker on every page (issue 30).  It keeps the site's shell for offline use and
 * shows push messages (see /sw.js); this registers it and tells it the page's language, so that a page
 * opened without a network says "offline" in the language the reader chose. */
(function () {
  "use strict";
  if (!("serviceWorker" in navigator)) return;
  const lang = document.documentElement.lang;
  navigator.serviceWorker.register("/sw.js", { scope: "/" })
    .then(() => navigator.serviceWorker.ready)
    .then((registration) => {
      if (registration.active) registration.active.postMessage({ type: "lang", lang });
      document.documentElement.dataset.serviceWorker = "ready";
    })
    .catch(() => {
      document.documentElement.dataset.serviceWorker = "failed";
    });
})();
