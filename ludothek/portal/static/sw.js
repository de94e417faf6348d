/* Ludothek's service worker (issue 30), served as /sw.js so that its scope is the whole site.
 *
 * - Push: a message from the site (its payload: kind, game, title, body, path) becomes a notification;
 *   clicking it focuses the tab already showing that page, or opens it.
 * - The offline shell: on install, the styles, scripts, icons and the offline page in each language go
 *   into a cache named after this version (the server puts a hash of all of them into VERSION, so every
 *   release installs anew and drops the older caches on activate).  Pages are fetched from the network
 *   first; when that fails, the offline page in the reader's language answers instead of a browser error.
 *   The shell's files are answered from the cache first: a page opens at once even on a slow network.
 */
"use strict";

const VERSION = "__VERSION__";
const SHELL = ["__SHELL__"];
const PREFIX = "ludothek-shell-";
const CACHE = PREFIX + VERSION;
const META = "ludothek-meta";  // the reader's language, as the pages last said (see pwa.js)

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(SHELL.map((url) => new Request(url, { cache: "reload" }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith(PREFIX) && n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type === "lang" && (data.lang === "de" || data.lang === "en")) {
    event.waitUntil(caches.open(META).then((cache) => cache.put("/__lang", new Response(data.lang))));
  }
});

async function readerLang() {
  const hit = await (await caches.open(META)).match("/__lang");
  const lang = hit ? await hit.text() : "";
  if (lang === "de" || lang === "en") return lang;
  return (self.navigator.language || "en").toLowerCase().startsWith("de") ? "de" : "en";
}

async function offlinePage() {
  const lang = await readerLang();
  const page = await caches.match(`/offline?lang=${lang}`, { cacheName: CACHE });
  return page || new Response("offline", { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(() => offlinePage()));
    return;
  }
  if (SHELL.includes(url.pathname + url.search)) {
    event.respondWith(caches.match(request, { cacheName: CACHE }).then((hit) => hit || fetch(request)));
  }
});

function sitePath(path) {
  return typeof path === "string" && path.startsWith("/") && !path.startsWith("//") ? path : "/";
}

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (e) {
    data = {};
  }
  const title = typeof data.title === "string" && data.title ? data.title : "Ludothek";
  const tag = data.game ? `ludothek-${data.kind}-${data.game}` : `ludothek-${data.kind || "notice"}`;
  event.waitUntil(self.registration.showNotification(title, {
    body: typeof data.body === "string" ? data.body : "",
    icon: "/static/icons/icon-192.png",
    tag,
    lang: data.lang === "de" ? "de" : "en",
    data: { path: sitePath(data.path) },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL(sitePath((event.notification.data || {}).path), self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((tabs) => {
      const open = tabs.find((tab) => tab.url === target && "focus" in tab);
      return open ? open.focus() : self.clients.openWindow(target);
    }),
  );
});
