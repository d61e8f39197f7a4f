/*
 * sitesvc embedded viewer.
 *
 * Reads the viewer element's data attributes (data-object carries what the
 * Embed service knows: how to show the object and its file URLs), reveals
 * the hidden container and shows the object:
 *   mirador  images, books, maps: the IIIF manifest in Mirador
 *   media    HTML5 audio and video players
 *   pdf      the browser's PDF viewer
 *   files    a list of files with sizes and download links
 * A restricted or citation-only object shows why it cannot be viewed.
 * Every value goes into the page as text or as a property, never as markup.
 */
(function () {
  'use strict';

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  // safeURL keeps only http(s) URLs: a file URL comes from the service, but
  // a link is never built from a javascript: or data: value.
  function safeURL(u) {
    try {
      var parsed = new URL(u, document.baseURI);
      if (parsed.protocol === 'http:' || parsed.protocol === 'https:') { return parsed.href; }
    } catch (e) { /* not a URL */ }
    return null;
  }

  function humanSize(n) {
    if (typeof n !== 'number' || !isFinite(n) || n < 0) { return ''; }
    var units = ['bytes', 'kB', 'MB', 'GB', 'TB'];
    var i = 0;
    while (n >= 1000 && i < units.length - 1) { n /= 1000; i++; }
    return (i === 0 ? String(n) : n.toFixed(n < 10 ? 1 : 0)) + ' ' + units[i];
  }

  function showMessage(body, cls, text) {
    var p = el('p', { 'class': cls, role: 'status' }, text);
    body.appendChild(p);
    return p;
  }

  function showAccess(body, obj) {
    var box = el('div', { 'class': 'sitesvc-access', role: 'status' });
    box.appendChild(el('p', { 'class': 'sitesvc-access-message' }, obj.access.message || 'Access to this item is restricted.'));
    var link = safeURL(obj.purl);
    if (link) {
      var p = el('p');
      p.appendChild(el('a', { href: link, target: '_blank', rel: 'noopener' }, 'View the item\u2019s record'));
      box.appendChild(p);
    }
    body.appendChild(box);
  }

  function showFiles(body, obj) {
    var list = el('ul', { 'class': 'sitesvc-files' });
    (obj.files || []).forEach(function (f) {
      var href = safeURL(f.url);
      var li = el('li', { 'class': 'sitesvc-file' });
      if (href && !f.restricted && !(obj.access && obj.access.no_download)) {
        li.appendChild(el('a', { href: href, download: f.name, 'class': 'sitesvc-file-link' }, f.name));
      } else {
        li.appendChild(el('span', { 'class': 'sitesvc-file-name' }, f.name));
      }
      li.appendChild(el('span', { 'class': 'sitesvc-file-size' }, humanSize(f.size)));
      list.appendChild(li);
    });
    if (!list.firstChild) {
      showMessage(body, 'sitesvc-empty', 'This item has no files to show.');
      return;
    }
    body.appendChild(list);
  }

  function showMedia(body, obj) {
    var shown = 0;
    var media = (obj.files || []).filter(function (f) {
      var kind = (f.mimetype || '').split('/')[0];
      return kind === 'audio' || kind === 'video';
    });
    var hasVideo = media.some(function (f) { return (f.mimetype || '').indexOf('video/') === 0; });
    // Sound alone would leave the frame empty: its cover image (when the
    // object has one) fills the space above the player.
    var cover = hasVideo ? null : (obj.files || []).filter(function (f) { return (f.mimetype || '').indexOf('image/') === 0; })[0];
    media.forEach(function (f) {
      var kind = (f.mimetype || '').split('/')[0];
      var src = safeURL(f.url);
      if (!src) { return; }
      var figure = el('figure', { 'class': 'sitesvc-media' });
      var coverURL = cover && !shown && safeURL(cover.url);
      if (coverURL) {
        figure.appendChild(el('img', { src: coverURL, alt: cover.label || cover.name, 'class': 'sitesvc-media-cover' }));
      }
      var player = el(kind, { controls: '', preload: 'metadata', 'class': 'sitesvc-' + kind, 'aria-label': (kind === 'audio' ? 'Audio: ' : 'Video: ') + (f.label || f.name) });
      if (obj.access && obj.access.no_download) { player.setAttribute('controlsList', 'nodownload'); }
      var source = el('source', { src: src, type: f.mimetype });
      player.appendChild(source);
      player.appendChild(document.createTextNode('Your browser cannot play this ' + kind + ' file.'));
      figure.appendChild(player);
      figure.appendChild(el('figcaption', null, f.label || f.name));
      body.appendChild(figure);
      shown++;
    });
    if (!shown) { showFiles(body, obj); }
  }

  function showPDF(body, obj) {
    var pdf = (obj.files || []).filter(function (f) { return f.mimetype === 'application/pdf'; })[0];
    var src = pdf && safeURL(pdf.url);
    if (!src) { showFiles(body, obj); return; }
    // The PDF takes the whole frame; the other files (if any) follow it.
    // It opens fitted to the frame's width, without the side panel, which
    // in a small frame would leave the page a stamp (RFC 8118 open
    // parameters; each viewer honours those it knows).
    var frame = el('iframe', { src: src + '#view=FitH&pagemode=none&navpanes=0', 'class': 'sitesvc-pdf', title: 'PDF: ' + (pdf.label || pdf.name) });
    body.appendChild(frame);
    if ((obj.files || []).length > 1) { showFiles(body, obj); }
  }

  // showCollection lists the members of a collection, read from its IIIF
  // Collection (the PURL service answers it to any origin), each a link
  // to its page, and links the collection's page, which lists them all.
  function showCollection(body, obj) {
    var box = el('div', { 'class': 'sitesvc-collection' });
    var status = el('p', { 'class': 'sitesvc-collection-status', role: 'status' }, 'Loading the items of this collection\u2026');
    box.appendChild(status);
    body.appendChild(box);
    var page = safeURL(obj.purl);
    var done = function (items) {
      status.remove();
      var list = el('ul', { 'class': 'sitesvc-members' });
      items.forEach(function (item) {
        var href = safeURL(String(item.id || '').replace(/\/iiif\/manifest$/, ''));
        if (!href) { return; }
        var li = el('li');
        li.appendChild(el('a', { href: href, target: '_blank', rel: 'noopener' }, labelOf(item.label) || href));
        list.appendChild(li);
      });
      if (list.firstChild) {
        box.appendChild(list);
      } else {
        box.appendChild(el('p', { 'class': 'sitesvc-empty' }, 'This collection has no items to show yet.'));
      }
      if (page) {
        var p = el('p', { 'class': 'sitesvc-collection-page' });
        p.appendChild(el('a', { href: page, target: '_blank', rel: 'noopener' }, 'All items on the collection\u2019s page'));
        box.appendChild(p);
      }
    };
    var manifest = safeURL(obj.manifest || '');
    if (!manifest || !window.fetch) { done([]); return; }
    fetch(manifest, { headers: { Accept: 'application/ld+json' } })
      .then(function (r) { if (!r.ok) { throw new Error(String(r.status)); } return r.json(); })
      .then(function (c) { done(Array.isArray(c.items) ? c.items : []); })
      .catch(function () { done([]); });
  }

  // labelOf is the text of a IIIF language map ({"none": ["…"]}).
  function labelOf(map) {
    if (!map || typeof map !== 'object') { return ''; }
    var keys = Object.keys(map);
    for (var i = 0; i < keys.length; i++) {
      var v = map[keys[i]];
      if (Array.isArray(v) && v.length) { return String(v[0]); }
    }
    return '';
  }

  function imageFiles(obj) {
    return (obj.files || []).filter(function (f) { return (f.mimetype || '').indexOf('image/') === 0; });
  }

  // whenSized calls start once the element has a size: a viewer laid out
  // in a hidden (zero-sized) box would fit the image to nothing and open
  // zoomed into a corner.
  function whenSized(node, start) {
    if (node.clientWidth > 0 && node.clientHeight > 0) { start(); return; }
    if (!window.ResizeObserver) { setTimeout(function () { whenSized(node, start); }, 100); return; }
    var ro = new ResizeObserver(function () {
      if (node.clientWidth > 0 && node.clientHeight > 0) { ro.disconnect(); start(); }
    });
    ro.observe(node);
  }

  // trackNavHeight keeps --sitesvc-nav at the height of Mirador's canvas
  // controls (zoom, page turn, page label): the stylesheet ends the image
  // area where they begin, so OpenSeadragon fits the image above them and
  // they never cover it. Until they are drawn the stylesheet's estimate
  // holds.
  function trackNavHeight(mount) {
    var tries = 0;
    var find = function () {
      var nav = mount.querySelector('.mirador-canvas-nav');
      if (!nav) {
        if (tries++ < 600) { (window.requestAnimationFrame || setTimeout)(find, 16); }
        return;
      }
      var set = function () {
        if (nav.offsetHeight > 0) { mount.style.setProperty('--sitesvc-nav', nav.offsetHeight + 'px'); }
      };
      set();
      if (window.ResizeObserver) { new ResizeObserver(set).observe(nav); }
    };
    find();
  }

  // showMirador shows the manifest in Mirador, without Mirador's own window
  // chrome (the bar above replaces it), the thumbnail strip only for
  // several canvases. It returns the controller the bar's buttons use.
  function showMirador(body, viewer, obj, ui, token) {
    var mount = el('div', { id: 'sitesvc-mirador', 'class': 'sitesvc-mirador' });
    body.appendChild(mount);
    var manifest = viewer.getAttribute('data-viewer-uri');
    var images = imageFiles(obj);
    var several = images.length > 1;
    var windowId = 'sitesvc-window';
    var start = function () {
      if (!window.Mirador || typeof window.Mirador.viewer !== 'function') {
        mount.remove();
        showMessage(body, 'sitesvc-error', 'The image viewer could not be loaded.');
        showFiles(body, obj);
        return;
      }
      // The strip starts open only where there is room for it.
      var thumbs = several && mount.clientHeight >= 480;
      var win = { id: windowId, manifestId: manifest, thumbnailNavigationPosition: thumbs ? 'far-bottom' : 'off' };
      var canvasIndex = parseInt(viewer.getAttribute('data-canvas-index') || '', 10);
      if (!isNaN(canvasIndex)) { win.canvasIndex = canvasIndex; }
      var canvasId = viewer.getAttribute('data-canvas-id');
      if (canvasId) { win.canvasId = canvasId; }
      var m = window.Mirador.viewer(Object.assign({
        id: mount.id,
        windows: [win],
        window: {
          allowClose: false,
          allowMaximize: false,
          allowFullscreen: false,
          allowTopMenuButton: false,
          allowWindowSideBar: false,
          hideWindowTitle: true,
          sideBarOpenByDefault: false,
          defaultView: 'single',
          views: [{ key: 'single' }]
        },
        thumbnailNavigation: { height: 90 },
        workspace: { showZoomControls: true, type: 'mosaic', allowNewWindows: false },
        workspaceControlPanel: { enabled: false }
      }, token ? withToken(token) : {}));
      trackNavHeight(mount);
      if (several && m && m.store && window.Mirador.actions && window.Mirador.actions.setWindowThumbnailPosition) {
        ui.addThumbnails(thumbs, function (on) {
          m.store.dispatch(window.Mirador.actions.setWindowThumbnailPosition(windowId, on ? 'far-bottom' : 'off'));
        });
      }
      // The download button follows the canvas shown.
      if (m && m.store) {
        m.store.subscribe(function () {
          var w = (m.store.getState().windows || {})[windowId];
          var match = w && /\/iiif\/canvas\/(\d+)$/.exec(w.canvasId || '');
          if (match && images[match[1] - 1]) { ui.setDownload(images[match[1] - 1]); }
        });
      }
    };
    var load = function () {
      if (window.Mirador) { whenSized(mount, start); return; }
      var src = safeURL(viewer.getAttribute('data-mirador-uri') || '');
      if (!src) { start(); return; }
      var script = el('script', { src: src });
      script.onload = function () { whenSized(mount, start); };
      script.onerror = start;
      document.head.appendChild(script);
    };
    load();
    return images[0];
  }

  var icons = {
    thumbs: 'M3 15h4v4H3zm7 0h4v4h-4zm7 0h4v4h-4zM3 4h18v9H3z',
    fullscreen: 'M4 4h6v2H6v4H4zm10 0h6v6h-2V6h-4zM4 14h2v4h4v2H4zm14 0h2v6h-6v-2h4z',
    download: 'M11 3h2v9l3.5-3.5 1.4 1.4L12 15.8 6.1 9.9l1.4-1.4L11 12zM4 18h16v2H4z',
    share: 'M18 16a3 3 0 0 0-2.2 1l-7-3.6a3 3 0 0 0 0-1.8l7-3.6A3 3 0 1 0 15 6l-7 3.6a3 3 0 1 0 0 4.8l7 3.6A3 3 0 1 0 18 16z',
    info: 'M11 10h2v7h-2zm0-3h2v2h-2zM12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm0 18a8 8 0 1 1 0-16 8 8 0 0 1 0 16z'
  };

  function icon(name) {
    var ns = 'http://www.w3.org/2000/svg';
    var svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('viewBox', '0 0 24 24');
    svg.setAttribute('aria-hidden', 'true');
    svg.setAttribute('focusable', 'false');
    var path = document.createElementNS(ns, 'path');
    path.setAttribute('d', icons[name]);
    svg.appendChild(path);
    return svg;
  }

  function button(label, name) {
    var b = el('button', { type: 'button', 'class': 'sitesvc-control sitesvc-control-' + name, 'aria-label': label, title: label });
    b.appendChild(icon(name));
    return b;
  }

  // fillDownload lists, in the download panel, what can be had of file f
  // (the image the viewer shows, or the recording or PDF): an image by
  // size (JPEGs from the image service) and as its original, with its
  // format, pixel size and bytes named; then the whole object as a zip.
  function fillDownload(panel, obj, f) {
    panel.replaceChildren();
    var href = f && !f.restricted && safeURL(f.url);
    if (f && f.restricted) {
      panel.appendChild(el('p', { 'class': 'sitesvc-download-title' }, (f.label ? f.label + ' (' + f.name + ')' : f.name) + ': not available for download'));
    }
    if (href) {
      panel.appendChild(el('p', { 'class': 'sitesvc-download-title' }, f.label ? f.label + ' (' + f.name + ')' : f.name));
      var list = el('ul', { 'class': 'sitesvc-download-list' });
      var item = function (label, url, name, text) {
        var u = safeURL(url);
        if (!u) { return; }
        var li = el('li');
        li.appendChild(el('a', { href: u, download: name, target: '_blank', rel: 'noopener' }, label));
        li.appendChild(document.createTextNode(': ' + text));
        list.appendChild(li);
      };
      (f.sizes || []).forEach(function (s) {
        item(s.label, s.url, s.filename, 'JPEG, ' + s.width + ' \u00d7 ' + s.height + ' px');
      });
      var what = [f.format || f.mimetype];
      if (f.width && f.height) { what.push(f.width + ' \u00d7 ' + f.height + ' px'); }
      what.push(humanSize(f.size));
      item('Original', href + (href.indexOf('?') < 0 ? '?' : '&') + 'download=true', f.name, what.filter(Boolean).join(', '));
      panel.appendChild(list);
    }
    var zip = obj.zip && safeURL(obj.zip);
    if (zip) {
      var p = el('p', { 'class': 'sitesvc-download-all' });
      p.appendChild(el('a', { href: zip, download: '' }, 'All files of this item (zip)'));
      panel.appendChild(p);
    }
  }

  // controls builds the bar's buttons: thumbnails (added by the image
  // viewer for several canvases), full screen, download, share and rights.
  // Each is a real button or link with an accessible name; panels are
  // toggled with aria-expanded and closed with Escape.
  function controls(container, obj, restricted) {
    var bar = container.querySelector('.sitesvc-embed-controls');
    var ui = { addThumbnails: function () {}, setDownload: function () {} };
    if (!bar) { return ui; }
    var panels = [];
    function panelButton(label, name, panel, onOpen) {
      if (!panel) { return; }
      var b = button(label, name);
      b.setAttribute('aria-expanded', 'false');
      b.setAttribute('aria-controls', panel.id);
      panel.hidden = true;
      panels.push({ button: b, panel: panel });
      b.addEventListener('click', function () {
        var open = panel.hidden;
        panels.forEach(function (p) { p.panel.hidden = true; p.button.setAttribute('aria-expanded', 'false'); });
        panel.hidden = !open;
        b.setAttribute('aria-expanded', String(open));
        if (open && onOpen) { onOpen(); }
      });
      bar.appendChild(b);
    }
    ui.addThumbnails = function (on, toggle) {
      var b = button('Show page thumbnails', 'thumbs');
      b.setAttribute('aria-pressed', String(on));
      b.addEventListener('click', function () {
        on = !on;
        b.setAttribute('aria-pressed', String(on));
        toggle(on);
      });
      bar.insertBefore(b, bar.firstChild);
    };
    if (document.fullscreenEnabled && container.requestFullscreen) {
      var fs = button('Full screen', 'fullscreen');
      fs.setAttribute('aria-pressed', 'false');
      fs.addEventListener('click', function () {
        if (document.fullscreenElement) { document.exitFullscreen(); } else { container.requestFullscreen(); }
      });
      document.addEventListener('fullscreenchange', function () {
        fs.setAttribute('aria-pressed', String(document.fullscreenElement === container));
      });
      bar.appendChild(fs);
    }
    if (!restricted && !(obj.access && obj.access.no_download) && obj.viewer !== 'files' && obj.viewer !== 'collection') {
      var panel = el('div', { id: 'sitesvc-download', 'class': 'sitesvc-panel sitesvc-download', role: 'region', 'aria-label': 'Download' });
      container.appendChild(panel);
      // Mirador's store changes on every zoom step: the panel is filled
      // again only when the file shown changes.
      var shownFile;
      ui.setDownload = function (f) {
        if (f === shownFile) { return; }
        shownFile = f;
        fillDownload(panel, obj, f);
      };
      var first = obj.viewer === 'mirador' ? imageFiles(obj)[0] :
        (obj.files || []).filter(function (f) { return /^(audio|video)\//.test(f.mimetype || '') || f.mimetype === 'application/pdf'; })[0];
      ui.setDownload(first);
      panelButton('Download', 'download', panel);
    }
    var share = document.getElementById('sitesvc-share');
    panelButton('Share', 'share', share, function () {
      var input = share.querySelector('input');
      var status = share.querySelector('.sitesvc-share-status');
      input.focus();
      input.select();
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(input.value).then(function () { status.textContent = 'Link copied.'; }, function () { status.textContent = ''; });
      }
    });
    panelButton('Rights and license', 'info', document.getElementById('sitesvc-info'));
    container.addEventListener('keydown', function (e) {
      if (e.key !== 'Escape') { return; }
      panels.forEach(function (p) {
        if (!p.panel.hidden) { p.panel.hidden = true; p.button.setAttribute('aria-expanded', 'false'); p.button.focus(); }
      });
    });
    return ui;
  }

  // withToken is the Mirador configuration that sends an IIIF access
  // token with the image service's requests: info.json through Mirador's
  // request preprocessor, tiles through OpenSeadragon's ajax loading.
  // Mirador's own sign-in banner (IIIF Auth 1.0) stays off: this viewer
  // has signed in already.
  function withToken(token) {
    var header = { Authorization: 'Bearer ' + token };
    return {
      requests: {
        preprocessors: [function (url, options) {
          if (/\/info\.json$/.test(url)) { options.headers = Object.assign({}, options.headers || {}, header); }
          return options;
        }]
      },
      osdConfig: { loadTilesWithAjax: true, ajaxHeaders: header },
      auth: { serviceProfiles: [] }
    };
  }

  // findAuth finds, in a IIIF Presentation 3 manifest, the first content
  // resource's IIIF Authorization Flow 2.0 services: the probe, and the
  // active access service with its token and logout services.
  function findAuth(manifest) {
    var found = null;
    (manifest.items || []).some(function (canvas) {
      return (canvas.items || []).some(function (page) {
        return (page.items || []).some(function (anno) {
          var body = anno.body || {};
          return (body.service || []).some(function (svc) {
            if (svc.type !== 'AuthProbeService2') { return false; }
            var auth = { probe: svc.id };
            (svc.service || []).forEach(function (a) {
              if (a.type !== 'AuthAccessService2' || a.profile !== 'active') { return; }
              auth.access = a.id;
              auth.label = a.label && a.label.en && a.label.en[0];
              (a.service || []).forEach(function (t) {
                if (t.type === 'AuthAccessTokenService2') { auth.token = t.id; }
                if (t.type === 'AuthLogoutService2') { auth.logout = t.id; }
              });
            });
            found = auth;
            return true;
          });
        });
      });
    });
    return found;
  }

  // linkified appends text to node, its http(s) URLs as links (a
  // location's page on the Hours service), all of it as text nodes.
  function linkified(node, text) {
    var re = /https?:\/\/[^\s()<>"]+[^\s()<>".,;:]/g, last = 0, m;
    while ((m = re.exec(text)) !== null) {
      node.appendChild(document.createTextNode(text.slice(last, m.index)));
      var href = safeURL(m[0]);
      node.appendChild(href ? el('a', { href: href, target: '_blank', rel: 'noopener' }, m[0]) : document.createTextNode(m[0]));
      last = m.index + m[0].length;
    }
    node.appendChild(document.createTextNode(text.slice(last)));
  }

  function langText(m) {
    if (!m) { return ''; }
    var v = m.en || m.none || m[Object.keys(m)[0]];
    return (v && v[0]) || '';
  }

  // requestToken runs the access token service in a hidden frame and
  // resolves with the token, or null (not signed in, refused, no answer
  // in 10 s). Only a message from the service's origin carrying our
  // messageId counts.
  function requestToken(auth) {
    return new Promise(function (resolve) {
      var id = 'sitesvc-' + Math.random().toString(36).slice(2);
      var serviceOrigin = new URL(auth.token, window.location.href).origin;
      var frame = el('iframe', { src: auth.token + '?messageId=' + encodeURIComponent(id) + '&origin=' + encodeURIComponent(window.location.origin), title: 'Sign-in check', hidden: '', 'class': 'sitesvc-token-frame' });
      var timer;
      var finish = function (token) {
        window.removeEventListener('message', onMessage);
        clearTimeout(timer);
        frame.remove();
        resolve(token);
      };
      var onMessage = function (e) {
        if (e.origin !== serviceOrigin || !e.data || e.data.messageId !== id) { return; }
        finish(e.data.type === 'AuthAccessToken2' && e.data.accessToken ? e.data.accessToken : null);
      };
      window.addEventListener('message', onMessage);
      timer = setTimeout(function () { finish(null); }, 10000);
      document.body.appendChild(frame);
    });
  }

  function probe(auth, token) {
    var headers = token ? { Authorization: 'Bearer ' + token } : {};
    return fetch(auth.probe, { headers: headers }).then(function (r) {
      if (!r.ok) { throw new Error('probe ' + r.status); }
      return r.json();
    });
  }

  // restrictedFlow shows a restricted item to the people entitled to it
  // (IIIF Authorization Flow 2.0, docs/embed.md): it asks the probe
  // service whether this browser may see the item (its session, its
  // location, or an access token got silently), then shows it; else a
  // "Sign in to view" button opens the access service in a new window and,
  // once it closes, gets a token and probes again, without a reload. A
  // signed-in person without access reads why and whom to ask; "Sign out"
  // revokes the token and hides the item again.
  function restrictedFlow(viewer, obj, ui, show) {
    var manifestURL = safeURL(viewer.getAttribute('data-viewer-uri') || '');
    var box = null;
    var signOut = null;
    var clear = function () {
      while (viewer.firstChild) { viewer.removeChild(viewer.firstChild); }
      box = null;
    };
    var message = function (heading, note, cls) {
      clear();
      showAccess(viewer, obj);
      box = viewer.querySelector('.sitesvc-access');
      // The probe's words, when it has some, say it best: who may see
      // the item under the names the library gave (or where), whom to ask.
      var first = box.querySelector('.sitesvc-access-message');
      if (note && first) { first.textContent = ''; linkified(first, note); }
      if (heading) { box.insertBefore(el('p', { 'class': cls || 'sitesvc-access-heading' }, heading), box.firstChild); }
      resized(obj, false);
      return box;
    };
    // The record's message at once; the flow replaces it when it knows more.
    showAccess(viewer, obj);
    resized(obj, false);
    if (!manifestURL || !window.fetch || !window.Promise) { return; }
    fetch(manifestURL).then(function (r) { return r.json(); }).then(function (manifest) {
      var auth = findAuth(manifest);
      if (!auth) { return; }
      var signedOut = false;
      var check = function (token, silentTried) {
        probe(auth, token).then(function (res) {
          if (res.status === 200) {
            clear();
            viewer.setAttribute('data-access', 'granted');
            resized(obj, true);
            show(token);
            // Signed in (a token comes silently): offer to sign out. A
            // reader admitted by location gets no token and no button.
            if (auth.logout && token) {
              offerSignOut(token);
            } else if (auth.logout && auth.token) {
              requestToken(auth).then(function (t) { if (t) { offerSignOut(t); } });
            }
            return;
          }
          if (!token && !silentTried && auth.token && !signedOut) {
            requestToken(auth).then(function (t) { if (t) { check(t, true); } else { offerSignIn(res); } });
            return;
          }
          if (res.status === 403 && token) {
            viewer.setAttribute('data-access', 'refused');
            var b = message(langText(res.heading), langText(res.note), 'sitesvc-access-refused');
            if (auth.logout) { b.appendChild(signOutButton(token, 'Sign in with another account')); }
            return;
          }
          offerSignIn(res);
        }, function () { message('', ''); });
      };
      var offerSignIn = function (res) {
        viewer.setAttribute('data-access', 'sign-in');
        var b = message('', langText(res && res.note));
        if (!auth.access) { return; }
        var button = el('button', { type: 'button', 'class': 'sitesvc-signin' }, auth.label || 'Sign in to view');
        var status = el('p', { 'class': 'sitesvc-signin-status', role: 'status' });
        button.addEventListener('click', function () {
          var w = window.open(auth.access + '?origin=' + encodeURIComponent(window.location.origin), 'sitesvc-signin', 'width=640,height=720');
          if (!w) { status.textContent = 'Allow pop-up windows for this site to sign in.'; return; }
          status.textContent = 'Signing in in a new window\u2026';
          button.disabled = true;
          var poll = setInterval(function () {
            if (!w.closed) { return; }
            clearInterval(poll);
            signedOut = false;
            requestToken(auth).then(function (t) {
              if (t) { check(t, true); return; }
              button.disabled = false;
              status.textContent = 'You are not signed in.';
            });
          }, 400);
        });
        b.appendChild(button);
        b.appendChild(status);
        resized(obj, false);
      };
      var signOutButton = function (token, label) {
        var so = el('button', { type: 'button', 'class': 'sitesvc-signout' }, label || 'Sign out');
        so.addEventListener('click', function () {
          window.open(auth.logout, 'sitesvc-signout', 'width=640,height=480');
          signedOut = true;
          if (signOut) { signOut.remove(); signOut = null; }
          clear();
          offerSignIn(null);
        });
        return so;
      };
      var offerSignOut = function (token) {
        var bar = document.querySelector('.sitesvc-embed-controls');
        if (!bar || signOut) { return; }
        signOut = signOutButton(token);
        signOut.classList.add('sitesvc-control');
        bar.appendChild(signOut);
      };
      check(null, false);
    }, function () { /* no manifest: the record's message stays */ });
  }

  function init() {
    var container = document.getElementById('sitesvc-embed');
    var viewer = document.getElementById('sitesvc-viewer');
    if (!container || !viewer) { return; }
    var obj;
    try {
      obj = JSON.parse(viewer.getAttribute('data-object') || '{}');
    } catch (e) {
      obj = {};
    }
    var hideTitle = viewer.getAttribute('data-hide-title') === 'true';
    var header = container.querySelector('.sitesvc-embed-header');
    if (header && hideTitle) { header.hidden = true; }
    var restricted = !!(obj.access && obj.access.restricted);
    var ui = controls(container, obj, restricted);
    container.hidden = false;
    container.setAttribute('data-viewer', obj.viewer || '');

    var show = function (token) {
      switch (obj.viewer) {
        case 'mirador': showMirador(viewer, viewer, obj, ui, token); break;
        case 'media': showMedia(viewer, obj); break;
        case 'pdf': showPDF(viewer, obj); break;
        case 'collection': showCollection(viewer, obj); break;
        default: showFiles(viewer, obj);
      }
    };
    if (restricted) {
      restrictedFlow(viewer, obj, ui, show);
    } else {
      show(null);
    }
    announce(obj, restricted);
  }

  // resized tells the embedding page the height the viewer's content
  // wants now: a restricted item's message is short, so a page that sizes
  // the frame (the PURL page does) need not keep a tall empty box; full
  // asks for the frame's own size back (the item is shown). Sent on the
  // next frame, when the layout is known; nothing private is in it.
  function resized(obj, full) {
    if (window.parent === window) { return; }
    var send = function () {
      var bar = document.querySelector('.sitesvc-embed-bar');
      var box = document.querySelector('#sitesvc-viewer .sitesvc-access');
      var height = null;
      if (!full && box) {
        var style = window.getComputedStyle(box);
        height = Math.ceil((bar ? bar.getBoundingClientRect().height : 0) + box.getBoundingClientRect().height +
          parseFloat(style.marginTop || '0') + parseFloat(style.marginBottom || '0'));
      }
      try {
        window.parent.postMessage({ type: 'sitesvc-embed', event: 'resize', purl: obj.purl || '', full: !!full, height: height }, '*');
      } catch (e) { /* a parent that cannot receive messages */ }
    };
    if (window.requestAnimationFrame) { window.requestAnimationFrame(send); } else { setTimeout(send, 0); }
  }

  // announce tells the embedding page, when there is one, that the viewer
  // is showing the object, with the height its content wants: a page can
  // size the frame or stop showing a placeholder. Nothing private is sent,
  // so any origin may receive it.
  // The message waits for the next frame (the height is known once the
  // frame is laid out), or 200 ms where frames are not painted.
  function announce(obj, restricted) {
    if (window.parent === window) { return; }
    var sent = false;
    var send = function () {
      if (sent) { return; }
      sent = true;
      try {
        window.parent.postMessage({
          type: 'sitesvc-embed',
          event: 'shown',
          purl: obj.purl || '',
          viewer: obj.viewer || '',
          restricted: restricted,
          height: document.documentElement.scrollHeight
        }, '*');
      } catch (e) { /* a parent that cannot receive messages */ }
    };
    if (window.requestAnimationFrame) { window.requestAnimationFrame(send); }
    setTimeout(send, 200);
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();
