package embed

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"html/template"
	"net/url"
	"strconv"

	"github.com/sitelib/sitesvc/gen/embedapi"
	"github.com/sitelib/sitesvc/impl/embed/objectview"
	"github.com/sitelib/sitesvc/impl/embed/purlref"
)

// defaultHeightPx is the viewer height without maxheight: 500px = 31.25rem.
const defaultHeightPx = 500

// remPx is the CSS pixels per rem the sizes are expressed with.
const remPx = 16

// viewParams are the request parameters that change a rendering.
type viewParams struct {
	maxHeight *int32
	maxWidth  *int32
	hideTitle *bool
}

func (p viewParams) key(kind byte) renderKey {
	k := renderKey{kind: kind, hideTitle: p.hidden()}
	if p.maxHeight != nil {
		k.maxHeight = *p.maxHeight
	}
	if p.maxWidth != nil {
		k.maxWidth = *p.maxWidth
	}
	return k
}

func (p viewParams) hidden() bool { return p.hideTitle != nil && *p.hideTitle }

// rem writes px as a CSS rem length ("31.25rem").
func rem(px int32) string {
	return strconv.FormatFloat(float64(px)/remPx, 'f', -1, 64) + "rem"
}

// oembed builds the oEmbed response for obj.
func (s *Service) oembed(obj *objectview.Object, p viewParams) embedapi.OEmbed {
	h := int32(defaultHeightPx)
	if p.maxHeight != nil && *p.maxHeight < h {
		h = *p.maxHeight
	}
	height := rem(h)
	var width *string
	if p.maxWidth != nil {
		w := rem(*p.maxWidth)
		width = &w
	}
	o := embedapi.OEmbed{
		Type:         embedapi.Rich,
		Version:      embedapi.N10,
		ProviderName: s.cfg.ProviderName,
		Title:        obj.Title,
		Height:       &height,
		Width:        width,
		Html:         s.iframeElement(obj, p),
	}
	s.addThumbnail(&o, obj)
	return o
}

// iframeSrc is the /iframe URL for obj with the request's hide_title. The
// url is the object's canonical PURL (the requested one normalised: lower
// case druid, no "druid:" prefix). hide_title=false is the default and is
// left out.
func (s *Service) iframeSrc(obj *objectview.Object, p viewParams) string {
	src := s.embedBase + "/iframe?url=" + url.QueryEscape(s.purl.ObjectURL(obj.Druid))
	if p.hidden() {
		src += "&hide_title=true"
	}
	return src
}

// iframeElement is the oEmbed html: every attribute value HTML-escaped.
func (s *Service) iframeElement(obj *objectview.Object, p viewParams) string {
	return fmt.Sprintf(`<iframe src="%s" style="height: 100%%; width: 100%%;" frameborder="0" marginwidth="0" marginheight="0" scrolling="no" allowfullscreen title="%s"></iframe>`,
		html.EscapeString(s.iframeSrc(obj, p)), html.EscapeString("Viewer: "+obj.Title))
}

// oembedJSON renders o as JSON, one line, with the fields in the seed's
// order (type, version, provider_name, title, height, width, html; the
// generated struct would sort them), HTML characters left readable (the
// html field is markup on purpose).
func oembedJSON(o embedapi.OEmbed) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	typ, version := string(o.Type), string(o.Version)
	buf.WriteByte('{')
	for i, f := range oembedFields(&o, &typ, &version) {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(`"` + f.name + `":`)
		if f.v == nil {
			buf.WriteString("null")
			continue
		}
		if err := enc.Encode(*f.v); err != nil {
			return nil, fmt.Errorf("encoding oEmbed JSON field %s: %w", f.name, err)
		}
		buf.Truncate(buf.Len() - 1) // the Encoder's newline
	}
	if err := thumbnailJSON(&buf, o); err != nil {
		return nil, err
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

type oembedField struct {
	name string
	v    *string
}

// oembedFields lists o's fields in the seed's order with their JSON names;
// a nil value is null.
func oembedFields(o *embedapi.OEmbed, typ, version *string) []oembedField {
	return []oembedField{
		{"type", typ}, {"version", version}, {"provider_name", &o.ProviderName},
		{"title", &o.Title}, {"height", o.Height}, {"width", o.Width}, {"html", &o.Html},
	}
}

// oembedXML renders o as XML: root oembed, one child per field with the
// JSON names in the JSON order; a null is an empty element.
func oembedXML(o embedapi.OEmbed) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`<?xml version="1.0" encoding="utf-8" standalone="yes"?>` + "\n<oembed>")
	field := func(name string, v *string) error {
		buf.WriteString("<" + name + ">")
		if v != nil {
			if err := xml.EscapeText(&buf, []byte(*v)); err != nil {
				return fmt.Errorf("encoding oEmbed XML field %s: %w", name, err)
			}
		}
		buf.WriteString("</" + name + ">")
		return nil
	}
	typ, version := string(o.Type), string(o.Version)
	for _, f := range oembedFields(&o, &typ, &version) {
		if err := field(f.name, f.v); err != nil {
			return nil, err
		}
	}
	thumbnailXML(&buf, o)
	buf.WriteString("</oembed>\n")
	return buf.Bytes(), nil
}

// viewerObject is what the viewer script reads from data-object: how to
// show the object and the URLs of its files.
type viewerObject struct {
	Druid    string       `json:"druid"`
	PURL     string       `json:"purl"`
	Title    string       `json:"title"`
	Viewer   string       `json:"viewer"`
	Manifest string       `json:"manifest,omitempty"`
	Access   viewerAccess `json:"access"`
	Files    []viewerFile `json:"files"`
}

type viewerAccess struct {
	Level      string `json:"level"`
	Restricted bool   `json:"restricted"`
	Message    string `json:"message,omitempty"`
	NoDownload bool   `json:"no_download,omitempty"`
}

type viewerFile struct {
	Name     string `json:"name"`
	Label    string `json:"label,omitempty"`
	URL      string `json:"url"`
	MimeType string `json:"mimetype"`
	Size     int64  `json:"size"`
}

// iframeData is the iframe template's input.
type iframeData struct {
	Title            string
	PURL             string
	CollectionURL    string
	OEmbedURL        string
	StylesheetURL    string
	ScriptURL        string
	MiradorURL       string
	ManifestURL      string
	HideTitle        bool
	ShowAttribution  bool
	CDL              bool
	Use              string
	Copyright        string
	License          string
	MaxHeight        int32
	MaxWidth         int32
	ObjectJSON       string
	AccessMessage    string
	AccessRestricted bool
}

// iframeDocument renders the viewer document for obj.
func (s *Service) iframeDocument(obj *objectview.Object, p viewParams) ([]byte, error) {
	purl := s.purl.ObjectURL(obj.Druid)
	vo := viewerObject{
		Druid:  obj.Druid,
		PURL:   purl,
		Title:  obj.Title,
		Viewer: string(obj.Viewer()),
		Access: viewerAccess{
			Level:      string(obj.Access.Level),
			Restricted: obj.Access.Restricted(),
			Message:    obj.Access.Message(),
			NoDownload: obj.Access.NoDownload,
		},
		Files: []viewerFile{},
	}
	for _, r := range obj.Resources {
		for _, f := range r.Files {
			vo.Files = append(vo.Files, viewerFile{
				Name:     f.Name,
				Label:    r.Label,
				URL:      purl + "/file/" + url.PathEscape(f.Name),
				MimeType: f.MimeType,
				Size:     f.Size,
			})
		}
	}
	manifest := ""
	if obj.HasManifest {
		manifest = purl + "/iiif/manifest"
	}
	vo.Manifest = manifest
	objJSON, err := json.Marshal(vo)
	if err != nil {
		return nil, fmt.Errorf("encoding viewer object: %w", err)
	}
	d := iframeData{
		Title:            obj.Title,
		PURL:             purl,
		OEmbedURL:        s.embedBase + "/embed?url=" + url.QueryEscape(purl) + "&format=json",
		StylesheetURL:    s.embedBase + "/viewer/viewer.css?v=" + s.assets.css.etagToken(),
		ScriptURL:        s.embedBase + "/viewer/viewer.js?v=" + s.assets.js.etagToken(),
		MiradorURL:       s.embedBase + "/viewer/mirador.min.js",
		ManifestURL:      manifest, // "" when the PURL serves none
		HideTitle:        p.hidden(),
		ShowAttribution:  obj.Use != "" || obj.Copyright != "" || obj.License != "",
		CDL:              obj.Access.Level == objectview.CDL,
		Use:              obj.Use,
		Copyright:        obj.Copyright,
		License:          obj.License,
		ObjectJSON:       string(objJSON),
		AccessMessage:    obj.Access.Message(),
		AccessRestricted: obj.Access.Restricted(),
	}
	for _, c := range obj.Collections {
		// Only a well-formed druid becomes a link: the record is data from
		// another service, not trusted to hold a path.
		if id, ok := purlref.NormalizeDruid(c); ok {
			d.CollectionURL = s.purl.ObjectURL(id)
			break
		}
	}
	if p.maxHeight != nil {
		d.MaxHeight = *p.maxHeight
	}
	if p.maxWidth != nil {
		d.MaxWidth = *p.maxWidth
	}
	var buf bytes.Buffer
	if err := iframeTemplate.Execute(&buf, d); err != nil {
		return nil, fmt.Errorf("rendering iframe document: %w", err)
	}
	return buf.Bytes(), nil
}

var iframeTemplate = template.Must(template.New("iframe.html").ParseFS(assetFS, "assets/iframe.html"))
