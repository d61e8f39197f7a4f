package embed

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html/template"
	"net/url"
	"strings"

	"github.com/sitelib/sitesvc/gen/embedapi"
	"github.com/sitelib/sitesvc/impl/embed/embedcode"
	"github.com/sitelib/sitesvc/impl/embed/imagesizes"
	"github.com/sitelib/sitesvc/impl/embed/objectview"
	"github.com/sitelib/sitesvc/impl/embed/purlref"
	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
)

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

// params is p as embedcode takes them.
func (p viewParams) params() embedcode.Params {
	var c embedcode.Params
	if p.maxHeight != nil {
		c.MaxHeight = *p.maxHeight
	}
	if p.maxWidth != nil {
		c.MaxWidth = *p.maxWidth
	}
	c.HideTitle = p.hidden()
	return c
}

// oembed builds the oEmbed response for obj: its html is the embed code
// (embedcode.HTML), its height the one that code gives the frame.
func (s *Service) oembed(obj *objectview.Object, p viewParams) embedapi.OEmbed {
	height := embedcode.Rem(embedcode.HeightPx(obj, p.params()))
	var width *string
	if p.maxWidth != nil {
		w := embedcode.Rem(*p.maxWidth)
		width = &w
	}
	o := embedapi.OEmbed{
		Type:         embedapi.Rich,
		Version:      embedapi.N10,
		ProviderName: s.cfg.ProviderName,
		Title:        obj.Title,
		Height:       &height,
		Width:        width,
		Html:         embedcode.HTML(s.embedBase, s.purl.ObjectURL(obj.Druid), obj, p.params()),
	}
	s.addThumbnail(&o, obj)
	return o
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
	// Zip is the whole object as one zip ("Download all"), when anyone
	// may download its files.
	Zip string `json:"zip,omitempty"`
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
	Format   string `json:"format,omitempty"` // an image's format, for a person ("JPEG 2000")
	Width    int    `json:"width,omitempty"`
	Height   int    `json:"height,omitempty"`
	// Sizes are an image's JPEGs by size from the image service
	// (imagesizes.Downloads), offered beside the original.
	Sizes []imagesizes.Size `json:"sizes,omitempty"`
	// Restricted: in an object anyone may read, this file is one anyone
	// may not (its own rights); the viewer offers no download of it.
	Restricted bool `json:"restricted,omitempty"`
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
	Favicon          template.URL
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
	// Anyone may download the files: the sizes and the zip are offered,
	// file by file by the rights the PURL service applies (a file's own,
	// else the object's); the zip only when anyone may read every file.
	downloadable := obj.Access.Level == objectview.World && !obj.Access.NoDownload
	allOpen := true
	for _, r := range obj.Resources {
		for _, f := range r.Files {
			vf := viewerFile{
				Name:     f.Name,
				Label:    r.Label,
				URL:      purl + "/file/" + url.PathEscape(f.Name),
				MimeType: f.MimeType,
				Size:     f.Size,
				// marked only inside an open object: a restricted object's
				// files follow its own sign-in flow, as before
				Restricted: f.Restricted && obj.Access.Level == objectview.World,
			}
			allOpen = allOpen && !f.Restricted
			if strings.HasPrefix(f.MimeType, "image/") {
				vf.Format, vf.Width, vf.Height = imagesizes.FormatName(f.MimeType), f.Width, f.Height
				if downloadable && !f.Restricted && iiifimage.Tileable(f.MimeType) && f.Width > 0 && f.Height > 0 {
					vf.Sizes = imagesizes.Downloads(imagesizes.ServiceURL(purl, f.Name), f.Name, f.Width, f.Height)
				}
			}
			vo.Files = append(vo.Files, vf)
		}
	}
	if downloadable && allOpen && len(vo.Files) > 0 {
		vo.Zip = purl + ".zip"
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
		Favicon:          embedFavicon,
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
