package purl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/embed/embedcode"
	"github.com/sitelib/sitesvc/impl/embed/objectview"
	"github.com/sitelib/sitesvc/impl/purl/record"
)

type pageData struct {
	Title        string
	PURL         string
	Druid        string
	Names        []record.Name
	Dates        []string
	Abstract     []string
	Subjects     []string
	Language     []string
	Type         string
	Use          string
	License      string
	Copyright    string
	Citation     string
	Collections  []collectionLink
	Members      []collectionLink
	IsCollection bool
	Access       string
	FilesOpen    bool
	Files        []pageFile
	Versions     []record.Version
	Published    string
	OEmbedJSON   string
	OEmbedXML    string
	IframeURL    string
	XMLURL       string
	MODSURL      string
	ManifestURL  string // "" when the object has no manifest
	HasMODS      bool
	// AccessHelp says what a patron who cannot download the files can
	// do; ContactText/ContactURL whom to ask (ContactURL "" for text).
	AccessHelp              []string
	ContactText, ContactURL string
	// SignInURL signs a member of the object's login group in and brings
	// them back here ("" without a site sign-in or a group grant).
	SignInURL string
	Thumb     *pageThumb
	// ShowThumb: the page shows the thumbnail itself only where no viewer
	// shows the image (a collection), never a second copy above it.
	ShowThumb bool
	// Sizes are the image downloads by size (small, medium, large JPEG
	// from the image service, then the original), per image file.
	Sizes []imageDownloads
	// EmbedHTML is the embed code as markup (the noscript viewer).
	EmbedHTML template.HTML
	// Favicon is the page's icon (a data: URL, no extra request).
	Favicon       template.URL
	CitationLabel string // "Preferred citation" or "Citation"
	EmbedCode     string
	OEmbedURL     string
	Description   string // og:description
	JSONLD        template.JS
	ZipURL        string // "Download all"; "" unless anyone may download the files
}

// pageFile is a row of the file list; URL is "" when the reader may not
// download the file (no link that would fail). Access says who may, for a
// file restricted inside an object anyone may read ("" otherwise: the
// object's own notice says it).
type pageFile struct {
	Name, URL, MimeType, Size string
	Access                    string
}

// pageThumb is the object's thumbnail: a small JPEG from the image
// service (JSON-LD, the page of a collection) and a larger one for
// sharing previews (og:image).
type pageThumb struct {
	URL           string
	Width, Height int
	Share         imageSize
}

// pageDateFormat is the one way the page writes a date it makes itself
// (publication, embargo); dates of the description are shown as catalogued.
const pageDateFormat = "January 2, 2006"

// renderPage builds the object's HTML page. It shows the MODS record when
// there is one, the Dublin Core of the public XML otherwise.
func (s *Service) renderPage(obj *object, now time.Time) ([]byte, error) {
	rec := obj.rec
	purl := s.purl(rec.Druid)
	q := url.QueryEscape(purl)
	d := pageData{
		Title:        rec.Title(),
		PURL:         purl,
		Druid:        rec.Druid.Qualified(),
		Collections:  obj.collection,
		Members:      obj.members,
		IsCollection: rec.ObjectType == "collection",
		FilesOpen:    rec.Rights.WorldReadable(now),
		Versions:     rec.Versions,
		Published:    rec.Published.UTC().Format(pageDateFormat + ", 15:04 MST"),
		OEmbedJSON:   s.cfg.EmbedBaseURL + "/embed?url=" + q + "&format=json",
		OEmbedXML:    s.cfg.EmbedBaseURL + "/embed?url=" + q + "&format=xml",
		IframeURL:    s.cfg.EmbedBaseURL + "/iframe?url=" + q,
		XMLURL:       purl + ".xml",
		MODSURL:      purl + ".mods",
		HasMODS:      obj.modsDoc.body != nil,
		Use:          rec.Rights.UseStatement,
		License:      rec.Rights.License,
		Copyright:    rec.Rights.Copyright,
		Abstract:     rec.DC.Description,
		Subjects:     rec.DC.Subject,
		Dates:        rec.DC.Date,
		Language:     rec.DC.Language,
	}
	if obj.hasManifest() {
		d.ManifestURL = purl + "/iiif/manifest"
	}
	for _, c := range rec.DC.Creator {
		d.Names = append(d.Names, record.Name{Display: c, Roles: []string{"creator"}})
	}
	if len(rec.DC.Type) > 0 {
		d.Type = rec.DC.Type[0]
	}
	if m := obj.mods; m != nil {
		d.Title = m.Title
		d.Names = m.Names
		if len(m.Dates) > 0 {
			d.Dates = m.Dates
		}
		if len(m.Abstract) > 0 {
			d.Abstract = m.Abstract
		}
		if len(m.Subjects) > 0 {
			d.Subjects = m.Subjects
		}
		if len(m.Language) > 0 {
			d.Language = m.Language
		}
		if m.TypeOfResource != "" {
			d.Type = m.TypeOfResource
		}
		if m.UseStatement != "" {
			d.Use = m.UseStatement
		}
		d.Citation = m.PreferredCitation
	}
	d.Access = s.accessSummary(rec.Rights, now)
	d.AccessHelp = s.accessHelp(rec.Rights, now)
	if d.AccessHelp != nil {
		d.SignInURL = s.pageSignInURL(rec.Rights, purl)
	}
	if d.AccessHelp != nil && strings.TrimSpace(s.cfg.AccessContact) != "" {
		d.ContactText = strings.TrimSpace(s.cfg.AccessContact)
		d.ContactURL = contactLink(d.ContactText)
	}
	// Links are decided file by file, by the rights the file service applies
	// (a file's own rights, else the object's): the page is the same for
	// every reader, so a file gets a link when anyone may fetch it, and a
	// file restricted inside an open object says who may.
	allOpen := true
	for _, f := range rec.Files() {
		pf := pageFile{Name: f.Name, MimeType: f.MimeType, Size: humanSize(f.Size)}
		switch a := rec.Rights.ForFile(f.Name); {
		case a.WorldReadable(now):
			pf.URL = purl + "/file/" + url.PathEscape(f.Name) + "?download=true"
		default:
			allOpen = false
			if rec.Rights.Object.WorldReadable(now) {
				pf.Access = s.fileAccessNote(a, now)
			}
		}
		d.Files = append(d.Files, pf)
	}
	if d.FilesOpen && allOpen && len(d.Files) > 0 {
		d.ZipURL = purl + ".zip" // the zip holds every file: only when anyone may read them all
	}
	// The thumbnail only while anyone may fetch it: a broken image helps
	// nobody. It is a JPEG the image service makes, whatever the source
	// format (a JPEG 2000 shows in no browser, a 24 MP JPEG is megabytes).
	if f, ok := rec.File(rec.Thumb); ok && rec.Thumb != "" && rec.Rights.ForFile(f.Name).WorldReadable(now) {
		if t, ok := s.thumbnail(purl, f); ok {
			d.Thumb = t
			d.ShowThumb = d.IsCollection
		}
	}
	if rec.Rights.ReadRule != "no-download" {
		d.Sizes = s.imageDownloads(purl, rec, now)
	}
	d.CitationLabel = "Preferred citation"
	if d.Citation == "" {
		d.CitationLabel = "Citation"
		d.Citation = citation(d, rec)
	}
	d.OEmbedURL = d.OEmbedJSON
	// The Embed service's own code (embedcode), so the page hands out
	// exactly what oEmbed answers.
	view := objectview.FromRecord(rec, rec.Druid.String(), now)
	d.EmbedCode = embedcode.HTML(s.cfg.EmbedBaseURL, purl, view, embedcode.Params{})
	d.EmbedHTML = template.HTML(d.EmbedCode) // escaped by embedcode.HTML
	d.Favicon = favicon
	d.Description = d.Access
	if len(d.Abstract) > 0 {
		d.Description = d.Abstract[0]
	}
	ld, err := jsonLD(d, rec)
	if err != nil {
		return nil, err
	}
	d.JSONLD = ld
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// displayDate writes a catalogued date that is a calendar date
// (YYYY-MM-DD, or YYYY-MM) the way the page writes its own dates
// (pageDateFormat), so a page has one date format; a year, a range or free
// text ("circa 1850") is shown as catalogued. The JSON-LD keeps the
// catalogued value.
func displayDate(s string) string {
	v := strings.TrimSpace(s)
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return t.Format(pageDateFormat)
	}
	if t, err := time.Parse("2006-01", v); err == nil {
		return t.Format("January 2006")
	}
	return s
}

// citation builds a citation when the MODS record has no preferred one:
// creators, title, publisher, date, persistent URL.
func citation(d pageData, rec *record.Record) string {
	var parts []string
	var names []string
	for _, n := range d.Names {
		names = append(names, n.Display)
	}
	if len(names) > 0 {
		parts = append(parts, strings.Join(names, "; "))
	}
	parts = append(parts, d.Title)
	var pub []string
	if len(rec.DC.Publisher) > 0 {
		pub = append(pub, rec.DC.Publisher[0])
	}
	if len(d.Dates) > 0 {
		pub = append(pub, displayDate(d.Dates[0]))
	}
	if len(pub) > 0 {
		parts = append(parts, strings.Join(pub, ", "))
	}
	for i, p := range parts {
		parts[i] = strings.TrimRight(p, ". ")
	}
	return strings.Join(parts, ". ") + ". " + d.PURL
}

// schemaTypes maps contentMetadata/@type to the schema.org type of the
// object's JSON-LD.
var schemaTypes = map[string]string{
	"image": "ImageObject", "map": "Map", "book": "Book", "media": "MediaObject",
	"document": "DigitalDocument", "file": "Dataset", "collection": "Collection",
}

// jsonLD is the object's schema.org description for the page's
// application/ld+json script. json.Marshal escapes <, > and &, so the
// text cannot end the script element.
func jsonLD(d pageData, rec *record.Record) (template.JS, error) {
	typ := schemaTypes[rec.ContentType]
	if typ == "" {
		typ = "CreativeWork"
	}
	ld := map[string]any{
		"@context":   "https://schema.org",
		"@type":      typ,
		"@id":        d.PURL,
		"url":        d.PURL,
		"name":       d.Title,
		"identifier": d.Druid,
	}
	if len(d.Abstract) > 0 {
		ld["description"] = strings.Join(d.Abstract, "\n")
	}
	var creators []map[string]string
	for _, n := range d.Names {
		creators = append(creators, map[string]string{"@type": "Thing", "name": n.Display})
	}
	if creators != nil {
		ld["creator"] = creators
	}
	if len(d.Dates) > 0 {
		ld["dateCreated"] = d.Dates[0]
	}
	if len(d.Subjects) > 0 {
		ld["keywords"] = d.Subjects
	}
	if len(d.Language) > 0 {
		ld["inLanguage"] = d.Language[0]
	}
	if len(rec.DC.Publisher) > 0 {
		ld["publisher"] = map[string]string{"@type": "Organization", "name": rec.DC.Publisher[0]}
	}
	if d.License != "" {
		ld["license"] = d.License
	}
	if d.Thumb != nil {
		ld["thumbnailUrl"] = d.Thumb.URL
		ld["image"] = map[string]any{"@type": "ImageObject", "contentUrl": d.Thumb.Share.URL, "encodingFormat": "image/jpeg",
			"width": d.Thumb.Share.Width, "height": d.Thumb.Share.Height}
	}
	if len(d.Collections) > 0 {
		var parts []map[string]string
		for _, c := range d.Collections {
			parts = append(parts, map[string]string{"@type": "Collection", "@id": c.URL, "name": c.Title})
		}
		ld["isPartOf"] = parts
	}
	ld["isAccessibleForFree"] = true
	ld["conditionsOfAccess"] = d.Access
	b, err := json.Marshal(ld)
	if err != nil {
		return "", fmt.Errorf("JSON-LD: %w", err)
	}
	return template.JS(b), nil
}

func humanSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"join":        strings.Join,
	"displayDate": displayDate,
	"terms":       func(label string, values []string) termList { return termList{Label: label, Values: values} },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<meta name="description" content="{{.Description}}">
<meta property="og:type" content="website">
<meta property="og:title" content="{{.Title}}">
<meta property="og:url" content="{{.PURL}}">
<meta property="og:description" content="{{.Description}}">
{{- with .Thumb}}
<meta property="og:image" content="{{.Share.URL}}">
<meta property="og:image:type" content="image/jpeg">
<meta property="og:image:width" content="{{.Share.Width}}">
<meta property="og:image:height" content="{{.Share.Height}}">
<meta property="og:image:alt" content="{{$.Title}}">
{{- end}}
<link rel="icon" href="{{.Favicon}}" type="image/svg+xml">
<link rel="canonical" href="{{.PURL}}">
<link rel="alternate" type="application/json+oembed" href="{{.OEmbedJSON}}" title="{{.Title}}">
<link rel="alternate" type="text/xml+oembed" href="{{.OEmbedXML}}" title="{{.Title}}">
<link rel="alternate" type="application/xml" href="{{.XMLURL}}" title="Public XML record">
{{- if .HasMODS}}
<link rel="alternate" type="application/mods+xml" href="{{.MODSURL}}" title="MODS record">
{{- end}}
{{- if .ManifestURL}}
<link rel="alternate" type="application/ld+json" href="{{.ManifestURL}}" title="IIIF manifest">
{{- end}}
{{- range .Collections}}
<link rel="up" href="{{.URL}}" title="{{.Title}}">
{{- end}}
<script type="application/ld+json">{{.JSONLD}}</script>
<style>
*,*::before,*::after{box-sizing:border-box}
body{font-family:system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;line-height:1.45;color:#222;overflow-wrap:anywhere}
a{color:#0b5394}
h1{font-size:1.6rem;margin-bottom:.25rem}
.purl{color:#555;font-size:.9rem}
.top{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start}
.top img{max-width:100%;height:auto;border:1px solid #ccc}
#viewer{border:1px solid #ccc;margin:1rem 0;background:#f6f6f6}
#viewer iframe{display:block;border:0}
.sizes{list-style:none;padding:0;margin:.25rem 0 1rem}.sizes li{padding:.15rem 0}
dt{font-weight:600;margin-top:.6rem}
dd{margin-left:1rem}
.access{padding:.5rem .75rem;background:#fff6e0;border-left:4px solid #8a6d00}
table{border-collapse:collapse;width:100%;table-layout:fixed}td,th{padding:.2rem .4rem;text-align:left;border-bottom:1px solid #ddd;vertical-align:top}
textarea,input[type=text]{width:100%;font:inherit;font-size:.9rem;padding:.3rem}
textarea{min-height:4.5rem;resize:vertical}
button{font:inherit;padding:.3rem .8rem;margin:.3rem 0;cursor:pointer}
.copied{color:#1e6b2e;margin-left:.5rem}
.sign-in{display:inline-block;padding:.4rem 1rem;background:#0b5394;color:#fff;border-radius:.25rem;text-decoration:none;font-weight:600}
.sign-in:focus-visible{outline:3px solid #8a6d00;outline-offset:2px}
.file-access{color:#555;font-size:.9rem}
</style>
</head>
<body>
<main>
<h1 id="title">{{.Title}}</h1>
<p class="purl">Persistent URL: <a href="{{.PURL}}">{{.PURL}}</a></p>
{{- if .ShowThumb}}{{with .Thumb}}
<div class="top"><img id="thumbnail" src="{{.URL}}" alt="Thumbnail: {{$.Title}}" width="{{.Width}}" height="{{.Height}}"></div>
{{- end}}{{end}}
{{- if not .IsCollection}}
<section id="viewer" aria-label="Viewer" data-oembed="{{.OEmbedJSON}}" data-iframe="{{.IframeURL}}" data-title="{{.Title}}">
<noscript>{{.EmbedHTML}}</noscript>
</section>
{{- end}}
<p class="access" id="access">{{.Access}}</p>
{{- if or .Names .Dates .Type .Language .Abstract .Subjects .Collections}}
<section aria-labelledby="description-heading">
<h2 id="description-heading">Description</h2>
<dl>
{{- if .Names}}
<dt>Creators and contributors</dt>
{{- range .Names}}
<dd>{{.Display}}{{if .Roles}} ({{join .Roles ", "}}){{end}}</dd>
{{- end}}
{{- end}}
{{- if .Dates}}
<dt>Dates</dt>
{{- range .Dates}}<dd>{{displayDate .}}</dd>{{end}}
{{- end}}
{{- if .Type}}
<dt>Type</dt><dd>{{.Type}}</dd>
{{- end}}
{{- template "terms" terms "Language" .Language}}
{{- template "terms" terms "Abstract" .Abstract}}
{{- template "terms" terms "Subjects" .Subjects}}
{{- if .Collections}}
<dt>Collection</dt>
{{- range .Collections}}<dd><a href="{{.URL}}">{{.Title}}</a></dd>{{end}}
{{- end}}
</dl>
</section>
{{- end}}
{{- if or .Use .License .Copyright}}
<section aria-labelledby="access-heading">
<h2 id="access-heading">Access and use</h2>
<dl>
{{- if .Use}}
<dt>Use and reproduction</dt><dd>{{.Use}}</dd>
{{- end}}
{{- if .License}}
<dt>License</dt><dd><a href="{{.License}}" rel="license">{{.License}}</a></dd>
{{- end}}
{{- if .Copyright}}
<dt>Copyright</dt><dd>{{.Copyright}}</dd>
{{- end}}
</dl>
</section>
{{- end}}
<section aria-labelledby="cite-heading">
<h2 id="cite-heading">Cite this</h2>
<p><strong>{{.CitationLabel}}:</strong> <span id="citation">{{.Citation}}</span></p>
<button type="button" data-copy="citation" hidden>Copy citation</button>
</section>
<section aria-labelledby="embed-heading">
<h2 id="embed-heading">Embed this</h2>
<label for="embed-code">HTML to embed the viewer in another page</label>
<textarea id="embed-code" readonly>{{.EmbedCode}}</textarea>
<button type="button" data-copy="embed-code" hidden>Copy embed code</button>
<p><label for="oembed-url">oEmbed URL</label>
<input type="text" id="oembed-url" readonly value="{{.OEmbedURL}}">
<button type="button" data-copy="oembed-url" hidden>Copy oEmbed URL</button></p>
</section>
{{- if .IsCollection}}
<section aria-labelledby="members-heading">
<h2 id="members-heading">Items in this collection</h2>
{{- if .Members}}
<ul id="members">
{{- range .Members}}
<li><a href="{{.URL}}">{{.Title}}</a></li>
{{- end}}
</ul>
{{- else}}
<p>No published items yet.</p>
{{- end}}
</section>
{{- end}}
{{- if .Files}}
<section aria-labelledby="files-heading">
<h2 id="files-heading">{{if .FilesOpen}}Downloads{{else}}Files{{end}}</h2>
{{- range .Sizes}}
<h3 class="image-name">{{.Name}}</h3>
<ul class="sizes" data-image="{{.Name}}">
{{- range .Sizes}}
<li><a href="{{.URL}}" download="{{.FileName}}">{{.Label}}</a>: JPEG, {{.Width}} × {{.Height}} px</li>
{{- end}}
<li><a href="{{.OriginalURL}}" download>Original</a>: {{.Format}}, {{.Width}} × {{.Height}} px, {{.Size}}</li>
</ul>
{{- end}}
{{- if .Sizes}}
<h3>All files</h3>
{{- end}}
{{- if not .FilesOpen}}
<div id="restricted">
<p>{{.Access}}.</p>
<ul>
{{- range .AccessHelp}}
<li>{{.}}</li>
{{- end}}
{{- if .ContactText}}
<li>Questions about access: {{if .ContactURL}}<a href="{{.ContactURL}}">{{.ContactText}}</a>{{else}}{{.ContactText}}{{end}}</li>
{{- end}}
</ul>
{{- if .SignInURL}}
<p><a id="sign-in" class="sign-in" href="{{.SignInURL}}">Sign in</a></p>
{{- end}}
</div>
{{- end}}
<table>
<thead><tr><th scope="col">File</th><th scope="col">Type</th><th scope="col">Size</th></tr></thead>
<tbody>
{{- range .Files}}
<tr><td>{{if .URL}}<a href="{{.URL}}" download>{{.Name}}</a>{{else}}{{.Name}}{{end}}{{if .Access}} <span class="file-access">({{.Access}})</span>{{end}}</td><td>{{.MimeType}}</td><td>{{.Size}}</td></tr>
{{- end}}
</tbody>
</table>
{{- if .ZipURL}}
<p><a id="download-all" href="{{.ZipURL}}" download>Download all files (zip)</a></p>
{{- end}}
</section>
{{- end}}
<section aria-labelledby="records-heading">
<h2 id="records-heading">Records</h2>
<ul>
<li><a href="{{.XMLURL}}">Public XML record</a></li>
{{- if .HasMODS}}
<li><a href="{{.MODSURL}}">MODS record</a></li>
{{- end}}
{{- if .ManifestURL}}
<li><a href="{{.ManifestURL}}">IIIF manifest</a></li>
{{- end}}
</ul>
<p>{{.Druid}}, published {{.Published}}{{range .Versions}}; version {{.ID}}{{if .Description}}: {{.Description}}{{end}}{{end}}.</p>
</section>
</main>
<script>
(function () {
  // Copy buttons: shown only where the clipboard can be written.
  document.querySelectorAll("button[data-copy]").forEach(function (b) {
    if (!navigator.clipboard) { return; }
    b.hidden = false;
    b.addEventListener("click", function () {
      var el = document.getElementById(b.getAttribute("data-copy"));
      var text = el.value !== undefined ? el.value : el.textContent;
      navigator.clipboard.writeText(text).then(function () {
        var note = b.nextElementSibling && b.nextElementSibling.classList.contains("copied") ? b.nextElementSibling : null;
        if (!note) {
          note = document.createElement("span");
          note.className = "copied";
          note.setAttribute("role", "status");
          b.after(note);
        }
        note.textContent = "Copied";
      });
    });
  });
  var box = document.getElementById("viewer");
  if (!box || !window.fetch) { return; }
  // The viewer is the embed code the page hands out ("Embed this"): the
  // oEmbed html when the Embed service answers, else the same code as
  // the page has it.
  function show(code, state) {
    var holder = document.createElement("div");
    holder.innerHTML = code;
    box.replaceChildren(holder);
    box.setAttribute("data-state", state);
  }
  // A restricted item's viewer says how tall its message is: the frame
  // shrinks to it, and takes its own size back when the item is shown
  // (after sign-in). Only messages of the frame's own window count.
  window.addEventListener("message", function (e) {
    var d = e.data, frame = box.querySelector("iframe");
    if (!frame || e.source !== frame.contentWindow || !d || d.type !== "sitesvc-embed" || d.event !== "resize") { return; }
    if (d.full) {
      frame.style.removeProperty("height");
      frame.style.minHeight = frame.getAttribute("data-min-height") || frame.style.minHeight;
      box.removeAttribute("data-compact");
    } else if (typeof d.height === "number" && d.height > 0 && d.height < 2000) {
      if (!frame.hasAttribute("data-min-height")) { frame.setAttribute("data-min-height", frame.style.minHeight); }
      frame.style.minHeight = "0";
      frame.style.height = d.height + "px";
      box.setAttribute("data-compact", "");
    }
  });
  fetch(box.getAttribute("data-oembed"), { headers: { Accept: "application/json" } })
    .then(function (r) { if (!r.ok) { throw new Error("oEmbed answered " + r.status); } return r.json(); })
    .then(function (o) { show(o.html, "oembed"); })
    .catch(function () { show(document.getElementById("embed-code").value, "iframe"); });
})();
</script>
</body>
</html>
{{define "terms"}}{{if .Values}}
<dt>{{.Label}}</dt>
{{- range .Values}}<dd>{{.}}</dd>{{end}}
{{- end}}{{end}}`))

// termList is a labelled list of a description's terms (languages,
// abstracts, subjects): the page's "terms" template writes it as a <dt>
// and a <dd> per term, nothing when there are none.
type termList struct {
	Label  string
	Values []string
}
