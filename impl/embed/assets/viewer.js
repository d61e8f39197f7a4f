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
      if (href && !(obj.access && obj.access.no_download)) {
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
    (obj.files || []).forEach(function (f) {
      var kind = (f.mimetype || '').split('/')[0];
      if (kind !== 'audio' && kind !== 'video') { return; }
      var src = safeURL(f.url);
      if (!src) { return; }
      var figure = el('figure', { 'class': 'sitesvc-media' });
      var player = el(kind, { controls: '', preload: 'metadata', 'class': 'sitesvc-' + kind });
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
    var frame = el('iframe', { src: src, 'class': 'sitesvc-pdf', title: pdf.label || pdf.name });
    body.appendChild(frame);
    showFiles(body, obj);
  }

  function showMirador(body, viewer, obj, hideTitle) {
    var mount = el('div', { id: 'sitesvc-mirador', 'class': 'sitesvc-mirador' });
    body.appendChild(mount);
    var manifest = viewer.getAttribute('data-viewer-uri');
    var start = function () {
      if (!window.Mirador || typeof window.Mirador.viewer !== 'function') {
        mount.remove();
        showMessage(body, 'sitesvc-error', 'The image viewer could not be loaded.');
        showFiles(body, obj);
        return;
      }
      var win = { manifestId: manifest, thumbnailNavigationPosition: 'far-bottom' };
      var canvasIndex = parseInt(viewer.getAttribute('data-canvas-index') || '', 10);
      if (!isNaN(canvasIndex)) { win.canvasIndex = canvasIndex; }
      var canvasId = viewer.getAttribute('data-canvas-id');
      if (canvasId) { win.canvasId = canvasId; }
      window.Mirador.viewer({
        id: mount.id,
        windows: [win],
        window: {
          allowClose: false,
          allowMaximize: false,
          allowFullscreen: true,
          hideWindowTitle: hideTitle,
          sideBarOpenByDefault: false
        },
        workspace: { showZoomControls: true, type: 'mosaic' },
        workspaceControlPanel: { enabled: false }
      });
    };
    if (window.Mirador) { start(); return; }
    var src = safeURL(viewer.getAttribute('data-mirador-uri') || '');
    if (!src) { start(); return; }
    var script = el('script', { src: src });
    script.onload = start;
    script.onerror = start;
    document.head.appendChild(script);
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
    if (viewer.getAttribute('data-show-attribution') !== 'true') {
      var footer = container.querySelector('.sitesvc-embed-attribution');
      if (footer) { footer.hidden = true; }
    }
    container.hidden = false;
    container.setAttribute('data-viewer', obj.viewer || '');

    var restricted = !!(obj.access && obj.access.restricted);
    if (restricted) {
      showAccess(viewer, obj);
    } else {
      switch (obj.viewer) {
        case 'mirador': showMirador(viewer, viewer, obj, hideTitle); break;
        case 'media': showMedia(viewer, obj); break;
        case 'pdf': showPDF(viewer, obj); break;
        default: showFiles(viewer, obj);
      }
    }
    announce(obj, restricted);
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
