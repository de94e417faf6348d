/* Ludothek: Web Push on the account page (issue 30).
 *
 * "Notify me on this device": ask for the notification permission, subscribe through the service
 * worker's pushManager with the site's VAPID public key, and post the subscription to the API; the
 * page then shows the device in its list.  "Stop on this device" unsubscribes the browser and tells the
 * site.  Every step that can fail (no Push API, permission refused, no push service, e.g. a headless
 * browser) says so in the status line instead of failing silently. */
(function () {
  "use strict";
  const box = document.getElementById("push-device");
  if (!box) return;
  const subscribeButton = document.getElementById("push-subscribe");
  const stopButton = document.getElementById("push-unsubscribe-here");
  const status = document.getElementById("push-status");
  const csrf = (document.querySelector("meta[name=csrf-token]") || {}).content || "";

  function say(key, detail) {
    status.textContent = box.dataset[key] + (detail ? ` (${detail})` : "");
    status.dataset.state = key;
  }

  function keyBytes(base64url) {
    const padded = (base64url + "===".slice((base64url.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  }

  function deviceLabel() {
    const ua = navigator.userAgent;
    const browser = /Firefox\//.test(ua) ? "Firefox" : /Edg\//.test(ua) ? "Edge" : /OPR\//.test(ua) ? "Opera"
      : /(Chrome|Chromium)\//.test(ua) ? "Chrome" : /Safari\//.test(ua) ? "Safari" : "Browser";
    const os = /Android/.test(ua) ? "Android" : /iPhone|iPad|iPod/.test(ua) ? "iOS" : /Windows/.test(ua) ? "Windows"
      : /Mac OS X/.test(ua) ? "macOS" : /Linux|X11/.test(ua) ? "Linux" : "";
    return os ? `${browser} · ${os}` : browser;
  }

  async function endpointHash(endpoint) {
    if (!window.crypto || !crypto.subtle) return "";
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(endpoint));
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("").slice(0, 16);
  }

  function api(path, body) {
    return fetch(path, {
      method: "POST", credentials: "same-origin", body: JSON.stringify(body),
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrf },
    });
  }

  async function subscribe() {
    subscribeButton.disabled = true;
    say("msgWorking");
    try {
      const permission = await Notification.requestPermission();
      if (permission !== "granted") { say("msgDenied"); return; }
      const registration = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
      await navigator.serviceWorker.ready;
      let subscription;
      try {
        subscription = await registration.pushManager.subscribe({
          userVisibleOnly: true, applicationServerKey: keyBytes(box.dataset.key),
        });
      } catch (err) {
        say("msgFailed", err && err.name ? `${err.name}: ${err.message}` : String(err));
        return;
      }
      const json = subscription.toJSON();
      const answer = await api("/api/v1/me/push/devices", { endpoint: json.endpoint, keys: json.keys, label: deviceLabel() });
      if (!answer.ok) {
        const problem = await answer.json().catch(() => ({}));
        say("msgFailed", problem.detail || String(answer.status));
        return;
      }
      say("msgSaved");
      location.reload();
    } catch (err) {
      say("msgFailed", err && err.message ? err.message : String(err));
    } finally {
      subscribeButton.disabled = false;
    }
  }

  async function stopHere() {
    const registration = await navigator.serviceWorker.getRegistration("/");
    const subscription = registration && await registration.pushManager.getSubscription();
    if (subscription) {
      await api("/api/v1/me/push/unsubscribe", { endpoint: subscription.endpoint }).catch(() => null);
      await subscription.unsubscribe().catch(() => false);
    }
    say("msgStopped");
    location.reload();
  }

  async function start() {
    if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
      say("msgUnsupported");
      return;
    }
    if (Notification.permission === "denied") say("msgDenied");
    subscribeButton.hidden = false;
    subscribeButton.addEventListener("click", subscribe);
    stopButton.addEventListener("click", stopHere);
    const registration = await navigator.serviceWorker.getRegistration("/");
    const subscription = registration && await registration.pushManager.getSubscription().catch(() => null);
    if (!subscription) return;
    const mine = await endpointHash(subscription.endpoint);
    const known = (box.dataset.endpoints || "").split(" ").includes(mine);
    if (known) {
      say("msgHere");
      subscribeButton.hidden = true;
      stopButton.hidden = false;
      const row = document.querySelector(`#push-devices li[data-endpoint="${mine}"]`);
      if (row) row.classList.add("this-device");
    }
  }

  start().catch((err) => say("msgFailed", String(err)));
})();
