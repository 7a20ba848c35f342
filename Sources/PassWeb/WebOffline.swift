import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PassStore
import Support

/// The wallet at the gate: a web app manifest (so a phone can put the wallet on its home screen),
/// a service worker that keeps the signed-in session's passes for use offline, and the small
/// same-origin script that registers it (the CSP allows no inline script).
///
/// Per-user safety: every page of a signed-in session carries an offline key derived from that
/// session's form token (never the session id; a key names a cache, nothing more). The worker
/// keeps exactly one cache, named by the key of the session it last saw online, and deletes every
/// other cache before it stores anything; a page of a session that ended (401, a redirect to
/// the sign-in form) empties it; signing out sends `Clear-Site-Data`. Every answer to a signed-in
/// request names its session's key (`X-Passconduit-Offline`), and the worker compares it on
/// every page the browser opens, kept or not (and app.js on every page it runs on): a page of
/// another session deletes the caches of the one before, even when a sign-in proxy switched the
/// browser to another person without a sign-in page. So one session never gets another's page
/// from the cache. Without JavaScript nothing here runs and every page still works.
enum WebOffline {
    /// The cache key of a session: a one-way function of its form token.
    static func key(csrf: String) -> String {
        String(Digest.sha256Hex(Array("passconduit offline cache\u{0}\(csrf)".utf8)).prefix(32))
    }

    /// The response header that names the key of the session a page belongs to.
    static let keyHeader = HTTPField.Name("X-Passconduit-Offline")!

    /// Files anyone may fetch (no user data in them): answered before sign-in.
    static func asset(_ segments: [Substring]) -> WebApp.Answer? {
        guard segments.count == 1 else { return nil }
        let name = String(segments[0])
        let type: String
        let body: ByteBuffer
        switch name {
        case "manifest.webmanifest":
            type = "application/manifest+json"
            body = ByteBuffer(string: manifest)
        case "app.js":
            type = "application/javascript; charset=utf-8"
            body = ByteBuffer(string: appScript)
        case "sw.js":
            type = "application/javascript; charset=utf-8"
            body = ByteBuffer(string: serviceWorker)
        case "icon-180.png", "icon-192.png", "icon-512.png":
            type = "image/png"
            body = ByteBuffer(bytes: icons[name] ?? [])
        default:
            return nil
        }
        var headers = HTTPFields()
        headers[.contentType] = type
        // The worker itself is always checked for a newer version; the rest may be kept an hour.
        headers[.cacheControl] = name == "sw.js" ? "no-cache" : "max-age=3600"
        return WebApp.Answer(route: "/" + name, response: Response(status: .ok, headers: headers, body: .init(byteBuffer: body)))
    }

    /// What the worker keeps for this session: the index, the assets, the page of every pass
    /// that is not expired or voided (`fetch`), and every pass page it may go on keeping (`keep`:
    /// a pass that expired after it was saved stays, marked expired by app.js; a removed one goes).
    static func list(key: String, passes: [StoredPass], now: Date = Date()) -> WebApp.Answer {
        let live = passes.filter { !$0.voided && ($0.expirationDate.map { $0 > now } ?? true) }
        let assets = ["/", "/style.css", "/app.js", "/manifest.webmanifest", "/icon-192.png"]
        let object: [String: Any] = [
            "key": key,
            "fetch": assets + live.map { WebPages.page($0.id) },
            "keep": passes.map { WebPages.page($0.id) },
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[keyHeader] = key
        return WebApp.Answer(route: "/offline.json", response: Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data))))
    }

    // MARK: The manifest

    static let manifest = """
    {
      "name": "passconduit wallet",
      "short_name": "Passes",
      "description": "Your passes and tickets, also offline.",
      "start_url": "/",
      "scope": "/",
      "display": "standalone",
      "background_color": "#f4f5f7",
      "theme_color": "#0b57d0",
      "icons": [
        {"src": "/icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any"},
        {"src": "/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"},
        {"src": "/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable"}
      ]
    }

    """

    /// The `<head>` lines every page carries: the manifest, the icons, the script; and on a
    /// signed-in page the session's offline key (an empty key tells app.js nobody is signed in).
    static func head(key: String?) -> String {
        """
        <link rel="manifest" href="/manifest.webmanifest">
        <link rel="apple-touch-icon" href="/icon-180.png">
        <meta name="theme-color" content="#0b57d0">
        <meta name="passconduit-offline" content="\(key ?? "")">
        <script src="/app.js" defer></script>

        """
    }

    // MARK: The scripts

    /// Registers the worker on a signed-in page and asks it to save the session's passes (from
    /// the index); on a page of nobody, empties every cache. Marks passes that expired since
    /// their page was saved (`data-expires`), so an offline page never hides that.
    static let appScript = """
    // passconduit: keeps this session's passes for use offline (sw.js) and marks passes that
    // expired since their page was saved. Every page works without this script.
    (function () {
      'use strict';
      var root = document.documentElement;
      function status(s) { root.setAttribute('data-offline', s); }
      function markExpired() {
        var now = Date.now();
        document.querySelectorAll('[data-expires]').forEach(function (el) {
          var at = Date.parse(el.getAttribute('data-expires'));
          if (isNaN(at) || at > now || el.hasAttribute('data-expired')) return;
          el.setAttribute('data-expired', '');
          var when = el.getAttribute('data-expires-text') || '';
          if (el.tagName === 'LI') {
            var mark = document.createElement('span');
            mark.className = 'mark';
            mark.textContent = 'expired';
            (el.querySelector('a') || el).appendChild(mark);
          } else {
            var note = document.createElement('p');
            note.className = 'problem';
            note.setAttribute('role', 'status');
            note.textContent = 'This pass expired' + (when ? ' on ' + when : '') + '. It is kept here, marked expired.';
            el.parentNode.insertBefore(note, el);
          }
        });
      }
      markExpired();
      // The browser's time zone, for the dates of the pages after this one (a page drawn without
      // it writes each pass's dates at the pass's own offset, with the zone named).
      var zone = '';
      try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch (e) {}
      if (/^[A-Za-z0-9/_+-]{1,64}$/.test(zone) && document.cookie.split('; ').indexOf('pcbzone=' + zone) < 0) {
        document.cookie = 'pcbzone=' + zone + '; Path=/; Max-Age=31536000; SameSite=Strict';
      }
      var meta = document.querySelector('meta[name="passconduit-offline"]');
      var key = meta ? meta.getAttribute('content') : '';
      if (!('serviceWorker' in navigator) || !window.isSecureContext) { status('unavailable'); return; }
      var sw = navigator.serviceWorker;
      sw.addEventListener('message', function (e) { if (e.data && e.data.type) status(e.data.type); });
      if (key && window.caches) {
        // Another session's pages (a proxy may have switched people without a sign-in page) go.
        caches.keys().then(function (names) {
          return Promise.all(names.filter(function (n) { return n.indexOf('passconduit-') === 0 && n !== 'passconduit-' + key; })
            .map(function (n) { return caches.delete(n); }));
        });
      }
      if (!key) {
        // Nobody is signed in on this page: nothing of anyone stays on this device.
        if (sw.controller) sw.controller.postMessage({ type: 'forget' });
        if (window.caches) {
          caches.keys().then(function (names) {
            return Promise.all(names.filter(function (n) { return n.indexOf('passconduit-') === 0; })
              .map(function (n) { return caches.delete(n); }));
          }).then(function () { status('forgotten'); });
        }
        return;
      }
      sw.register('/sw.js').then(function () { return sw.ready; }).then(function (reg) {
        if (location.pathname === '/' && !location.search && navigator.onLine && reg.active) {
          status('saving');
          reg.active.postMessage({ type: 'sync', key: key });
        } else {
          status('ready');
        }
      }, function () { status('unavailable'); });
    })();

    """

    /// The worker: network first for the index, pass pages and the assets; from the cache of the
    /// current session only when the network fails.
    static let serviceWorker = """
    // passconduit service worker: the signed-in session's index and pass pages, kept for use
    // offline. One cache at a time, named by the session's offline key; any other is deleted
    // before anything is stored, and a signed-out answer deletes them all.
    'use strict';
    var PREFIX = 'passconduit-';
    var PAGE = /^\\/passes\\/[0-9a-f]{32}$/;
    var ASSETS = ['/style.css', '/app.js', '/manifest.webmanifest', '/icon-180.png', '/icon-192.png', '/icon-512.png'];

    self.addEventListener('install', function () { self.skipWaiting(); });
    self.addEventListener('activate', function (event) { event.waitUntil(self.clients.claim()); });

    function mine(name) { return name.indexOf(PREFIX) === 0; }
    async function current() {
      var names = (await caches.keys()).filter(mine);
      return names.length === 1 ? names[0] : null;
    }
    async function forget() {
      var names = await caches.keys();
      await Promise.all(names.map(function (n) { return caches.delete(n); }));
    }
    // Only the cache of `key` survives.
    async function use(key) {
      var name = PREFIX + key;
      var names = await caches.keys();
      await Promise.all(names.filter(function (n) { return n !== name; }).map(function (n) { return caches.delete(n); }));
      return caches.open(name);
    }
    function keyOf(response) {
      return response.type === 'basic' ? response.headers.get('X-Passconduit-Offline') : null;
    }
    function signedOut(response) {
      return response.type === 'opaqueredirect' || response.status === 401 || (response.redirected && new URL(response.url).pathname === '/login');
    }

    self.addEventListener('fetch', function (event) {
      var request = event.request;
      if (request.method !== 'GET') return;
      var url = new URL(request.url);
      if (url.origin !== self.location.origin) return;
      var page = (url.pathname === '/' && !url.search) || PAGE.test(url.pathname);
      var asset = ASSETS.indexOf(url.pathname) >= 0 && !url.search;
      if (page || asset) {
        event.respondWith(answer(request, url.href, page));
      } else if (request.mode === 'navigate') {
        // Any other page of the wallet is not kept, but says whose session the browser is in now.
        event.respondWith(watch(request));
      }
    });

    // Only the caches of `key` survive (none when nobody is signed in).
    async function keepOnly(key) {
      var names = (await caches.keys()).filter(mine);
      await Promise.all(names.filter(function (n) { return n !== PREFIX + key; }).map(function (n) { return caches.delete(n); }));
    }

    async function watch(request) {
      var response = await fetch(request);
      try {
        if (signedOut(response)) {
          await forget();
        } else if (response.type === 'basic') {
          var key = keyOf(response);
          if (key) await keepOnly(key);
        }
      } catch (ignored) {}
      return response;
    }

    async function answer(request, href, page) {
      var response;
      try {
        response = await fetch(request);
      } catch (offline) {
        var name = await current();
        var hit = name ? await (await caches.open(name)).match(href) : null;
        return hit || new Response('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Offline · passconduit</title>'
          + '<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/style.css"></head>'
          + '<body><main><h1>Offline</h1><p>This device is offline and this page was not saved on it. '
          + 'Your saved passes are on the <a href="/">index</a>.</p></main></body></html>',
          { status: 503, headers: { 'Content-Type': 'text/html; charset=utf-8' } });
      }
      try {
        if (signedOut(response)) {
          await forget();
        } else if (response.ok && response.type === 'basic') {
          var key = keyOf(response);
          if (page && key) {
            await (await use(key)).put(href, response.clone());
          } else if (!page) {
            var name2 = await current();
            if (name2) await (await caches.open(name2)).put(href, response.clone());
          }
        }
      } catch (ignored) {}
      return response;
    }

    self.addEventListener('message', function (event) {
      var data = event.data || {};
      var reply = function (type, count) { if (event.source) event.source.postMessage({ type: type, count: count }); };
      if (data.type === 'forget') {
        event.waitUntil(forget().then(function () { reply('forgotten'); }));
      } else if (data.type === 'sync') {
        event.waitUntil(sync().then(function (n) { reply(n < 0 ? 'forgotten' : 'saved', n); }, function () { reply('failed'); }));
      }
    });

    var running = null;
    function sync() {
      if (!running) running = save().finally(function () { running = null; });
      return running;
    }

    // Saves what /offline.json lists for the session whose cookie the browser holds now.
    async function save() {
      var list = await fetch('/offline.json', { credentials: 'same-origin', redirect: 'manual', cache: 'no-store' });
      if (signedOut(list)) { await forget(); return -1; }
      if (!list.ok) throw new Error('offline list: ' + list.status);
      var what = await list.json();
      if (!what.key || keyOf(list) !== what.key) throw new Error('offline list without a key');
      var cache = await use(what.key);
      var keep = new Set(what.keep.map(function (p) { return new URL(p, self.location.origin).href; }));
      for (var request of await cache.keys()) {
        var u = new URL(request.url);
        if (PAGE.test(u.pathname) && !keep.has(u.href)) await cache.delete(request);
      }
      var queue = what.fetch.slice();
      var saved = 0;
      var stop = false;
      async function worker() {
        while (queue.length && !stop) {
          var path = queue.shift();
          var href = new URL(path, self.location.origin).href;
          var isPage = PAGE.test(path);
          // A pass page is named by the pass's SHA-256: saved once, it stays right.
          if (isPage && await cache.match(href)) { saved++; continue; }
          var response = await fetch(href, { credentials: 'same-origin', redirect: 'manual' });
          if (signedOut(response)) { stop = true; return; }
          if (!response.ok) continue;
          if ((isPage || path === '/') && keyOf(response) !== what.key) continue;
          await cache.put(href, response);
          saved++;
        }
      }
      await Promise.all([worker(), worker(), worker(), worker()]);
      if (stop) { await forget(); return -1; }
      return saved;
    }

    """

    // MARK: Icons

    /// The home-screen icons, drawn once: a white ticket with a notch on each side on the
    /// wallet's blue, full bleed (the phone rounds the corners).
    static let icons: [String: [UInt8]] = [
        "icon-180.png": icon(size: 180), "icon-192.png": icon(size: 192), "icon-512.png": icon(size: 512),
    ]

    static func icon(size: Int) -> [UInt8] {
        let s = Double(size)
        // The ticket: inside the maskable safe zone (the middle 80%).
        let left = s * 0.22, right = s * 0.78, top = s * 0.30, bottom = s * 0.70, radius = s * 0.05
        let notch = s * 0.07, lineX = s * 0.60
        func inTicket(_ x: Double, _ y: Double) -> Bool {
            guard x >= left, x <= right, y >= top, y <= bottom else { return false }
            // Rounded corners.
            let cx = x < left + radius ? left + radius : (x > right - radius ? right - radius : x)
            let cy = y < top + radius ? top + radius : (y > bottom - radius ? bottom - radius : y)
            if (x - cx) * (x - cx) + (y - cy) * (y - cy) > radius * radius { return false }
            // The notches where a ticket is torn, top and bottom.
            let midY = y < s / 2 ? top : bottom
            if (x - lineX) * (x - lineX) + (y - midY) * (y - midY) < notch * notch { return false }
            // The perforation.
            if abs(x - lineX) < max(1, s * 0.008), Int(y / max(2, s * 0.03)) % 2 == 0 { return false }
            return true
        }
        var rows: [UInt8] = []
        let rowBytes = (size + 7) / 8
        rows.reserveCapacity((rowBytes + 1) * size)
        for y in 0..<size {
            rows.append(0)  // filter: none
            var byte: UInt8 = 0
            for x in 0..<size {
                if inTicket(Double(x) + 0.5, Double(y) + 0.5) { byte |= 0x80 >> UInt8(x % 8) }
                if x % 8 == 7 || x == size - 1 {
                    rows.append(byte)
                    byte = 0
                }
            }
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header = bigEndian(UInt32(size)) + bigEndian(UInt32(size))
        header += [1, 3, 0, 0, 0]  // 1 bit per pixel, palette
        chunk("IHDR", header, into: &png)
        chunk("PLTE", [0x0B, 0x57, 0xD0, 0xFF, 0xFF, 0xFF], into: &png)
        chunk("IDAT", zlibStored(rows), into: &png)
        chunk("IEND", [], into: &png)
        return png
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    static func chunk(_ type: String, _ data: [UInt8], into png: inout [UInt8]) {
        let typed = Array(type.utf8) + data
        png += bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    /// A zlib stream of stored (uncompressed) deflate blocks: the icons are small enough.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, data.count - offset)
            let last: UInt8 = offset + n == data.count ? 1 : 0
            out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[offset..<(offset + n)]
            offset += n
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + bigEndian(b << 16 | a)
    }

    static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
