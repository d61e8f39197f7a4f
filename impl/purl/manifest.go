package purl

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// IIIF Presentation 3.0 shapes, in the order the spec lists their fields.
type (
	langMap map[string][]string

	iiifEntry struct {
		Label langMap `json:"label"`
		Value langMap `json:"value"`
	}

	iiifRef struct {
		ID       string  `json:"id"`
		Type     string  `json:"type"`
		Label    langMap `json:"label,omitempty"`
		Format   string  `json:"format,omitempty"`
		Width    int     `json:"width,omitempty"`
		Height   int     `json:"height,omitempty"`
		Duration float64 `json:"duration,omitempty"`
		// Service is the image service of an image (iiif_image.go).
		Service []iiifService `json:"service,omitempty"`
	}

	iiifAnnotation struct {
		ID         string  `json:"id"`
		Type       string  `json:"type"`
		Motivation string  `json:"motivation"`
		Body       iiifRef `json:"body"`
		Target     string  `json:"target"`
	}

	// iiifAgent is a provider: the organisation responsible for the object.
	iiifAgent struct {
		ID       string    `json:"id"`
		Type     string    `json:"type"`
		Label    langMap   `json:"label"`
		Homepage []iiifRef `json:"homepage,omitempty"`
	}

	iiifPage struct {
		ID    string           `json:"id"`
		Type  string           `json:"type"`
		Items []iiifAnnotation `json:"items"`
	}

	iiifCanvas struct {
		ID        string     `json:"id"`
		Type      string     `json:"type"`
		Label     langMap    `json:"label"`
		Width     int        `json:"width,omitempty"`
		Height    int        `json:"height,omitempty"`
		Duration  float64    `json:"duration,omitempty"`
		Thumbnail []iiifRef  `json:"thumbnail,omitempty"`
		Items     []iiifPage `json:"items"`
	}

	// iiifManifest is a Manifest, or a Collection (then Items is nil and
	// Members lists the member references).
	iiifManifest struct {
		Context           string       `json:"@context"`
		ID                string       `json:"id"`
		Type              string       `json:"type"`
		Label             langMap      `json:"label"`
		Summary           langMap      `json:"summary,omitempty"`
		Metadata          []iiifEntry  `json:"metadata,omitempty"`
		Rights            string       `json:"rights,omitempty"`
		RequiredStatement *iiifEntry   `json:"requiredStatement,omitempty"`
		Provider          []iiifAgent  `json:"provider,omitempty"`
		Behavior          []string     `json:"behavior,omitempty"`
		ViewingDirection  string       `json:"viewingDirection,omitempty"`
		Thumbnail         []iiifRef    `json:"thumbnail,omitempty"`
		Homepage          []iiifRef    `json:"homepage,omitempty"`
		SeeAlso           []iiifRef    `json:"seeAlso,omitempty"`
		Rendering         []iiifRef    `json:"rendering,omitempty"`
		PartOf            []iiifRef    `json:"partOf,omitempty"`
		Items             []iiifCanvas `json:"items,omitempty"`
		Members           []iiifRef    `json:"-"`
	}
)

// MarshalJSON writes a Collection's member references as its items (a
// Manifest always has items, if only an empty list).
func (m iiifManifest) MarshalJSON() ([]byte, error) {
	type plain iiifManifest
	if m.Type == "Collection" {
		return json.Marshal(struct {
			plain
			Items []iiifRef `json:"items"`
		}{plain(m), m.Members})
	}
	if m.Items == nil {
		m.Items = []iiifCanvas{}
	}
	return json.Marshal(struct {
		plain
		Items []iiifCanvas `json:"items"`
	}{plain(m), m.Items})
}

func none(values ...string) langMap { return langMap{"none": values} }
func en(values ...string) langMap   { return langMap{"en": values} }

// buildManifest makes the object's IIIF manifest from its records: one
// canvas per image or page (with its pixel size) and per audio or video
// file (with its duration); documents and other files are renderings.
// A collection object gets a IIIF Collection referencing its members'
// manifests (or collections) instead, so that viewers can browse it.
func (s *Service) buildManifest(obj *object) ([]byte, error) {
	rec := obj.rec
	purl := s.purl(rec.Druid)
	m := iiifManifest{
		Context: "http://iiif.io/api/presentation/3/context.json",
		ID:      purl + "/iiif/manifest",
		Type:    "Manifest",
		Label:   none(rec.Title()),
	}
	// A book the repository says is read right to left
	// (contentMetadata/bookData/@readingOrder "rtl").
	if rec.ReadingOrder == "rtl" && rec.ObjectType != "collection" {
		m.ViewingDirection = "right-to-left"
	}
	if rec.ObjectType == "collection" {
		m.Type = "Collection"
		m.Members = []iiifRef{}
		for _, member := range obj.members {
			if !member.HasManifest {
				continue
			}
			ref := iiifRef{ID: member.URL + "/iiif/manifest", Type: "Manifest", Label: none(member.Title)}
			if member.Collection {
				ref.Type = "Collection"
			}
			m.Members = append(m.Members, ref)
		}
	}
	if obj.mods != nil {
		m.Label = none(obj.mods.Title)
	}
	if len(rec.DC.Description) > 0 {
		m.Summary = none(rec.DC.Description...)
	}
	add := func(label string, values []string) {
		if len(values) > 0 {
			m.Metadata = append(m.Metadata, iiifEntry{Label: en(label), Value: none(values...)})
		}
	}
	add("Creator", rec.DC.Creator)
	add("Contributor", rec.DC.Contributor)
	add("Date", rec.DC.Date)
	add("Type", rec.DC.Type)
	add("Subject", rec.DC.Subject)
	add("Language", rec.DC.Language)
	add("Publisher", rec.DC.Publisher)
	add("Identifier", []string{rec.Druid.Qualified()})
	if obj.mods != nil && obj.mods.PreferredCitation != "" {
		add("Preferred citation", []string{obj.mods.PreferredCitation})
	}
	add("Access", []string{s.accessSummary(rec.Rights, s.cfg.Now())})
	m.Rights = iiifRights(rec.Rights.License)
	if stmt := rec.Rights.UseStatement; stmt != "" || rec.Rights.Copyright != "" {
		values := []string{}
		for _, v := range []string{stmt, rec.Rights.Copyright} {
			if v != "" {
				values = append(values, v)
			}
		}
		m.RequiredStatement = &iiifEntry{Label: en("Use and reproduction"), Value: none(values...)}
	}
	m.Homepage = []iiifRef{{ID: purl, Type: "Text", Label: none(rec.Title()), Format: "text/html"}}
	// The provider is the publisher the record names (dc:publisher), else
	// the PURL service itself; its id is the PURL service's base URL, the
	// one URI this deployment is sure to answer for it.
	provider := "PURL service"
	if len(rec.DC.Publisher) > 0 {
		provider = rec.DC.Publisher[0]
	}
	m.Provider = []iiifAgent{{ID: s.cfg.BaseURL, Type: "Agent", Label: none(provider),
		Homepage: []iiifRef{{ID: s.cfg.BaseURL + "/", Type: "Text", Label: none(provider), Format: "text/html"}}}}
	m.SeeAlso = []iiifRef{{ID: purl + ".xml", Type: "Dataset", Label: en("Public XML record"), Format: "application/xml"}}
	if obj.modsDoc.body != nil {
		m.SeeAlso = append(m.SeeAlso, iiifRef{ID: purl + ".mods", Type: "Dataset", Label: en("MODS record"), Format: "application/mods+xml"})
	}
	// partOf names the IIIF Collection (the collection object's
	// /iiif/manifest), not its HTML page: a viewer follows it as IIIF.
	for _, c := range obj.collection {
		m.PartOf = append(m.PartOf, iiifRef{ID: c.URL + "/iiif/manifest", Type: "Collection", Label: none(c.Title)})
	}
	fileURL := func(name string) string { return purl + "/file/" + url.PathEscape(name) }
	// The thumbnail is given only when anyone may fetch it: a viewer shows
	// a restricted object's thumbnail as a broken image otherwise.
	if rec.Thumb != "" && rec.Rights.WorldReadable(s.cfg.Now()) {
		if f, ok := rec.File(rec.Thumb); ok {
			m.Thumbnail = []iiifRef{{ID: fileURL(f.Name), Type: "Image", Format: baseType(f.MimeType), Width: f.Width, Height: f.Height}}
			var body iiifRef
			if thumb := s.imageManifestParts(rec, f, &body); thumb != nil {
				m.Thumbnail = thumb
			}
		}
	}
	canvases := rec.Canvases()
	painted := map[string]bool{}
	for i, cv := range canvases {
		res, f := cv.Resource, cv.File
		painted[f.Name] = true
		label := res.Label
		if label == "" {
			label = f.Name
		}
		n := i + 1
		body := iiifRef{ID: fileURL(f.Name), Format: baseType(f.MimeType), Label: none(f.Name)}
		canvas := iiifCanvas{ID: fmt.Sprintf("%s/iiif/canvas/%d", purl, n), Type: "Canvas", Label: none(label)}
		switch {
		case f.Duration > 0 && (res.Type == "video" || (res.Type != "audio" && strings.HasPrefix(strings.ToLower(f.MimeType), "video/"))):
			// a video resource, or video in a resource of a type the
			// service does not know (shown by its media type)
			body.Type, body.Duration = "Video", f.Duration
			canvas.Duration = f.Duration
		case f.Duration > 0:
			body.Type, body.Duration = "Sound", f.Duration
			canvas.Duration = f.Duration
		default:
			body.Type, body.Width, body.Height = "Image", f.Width, f.Height
			canvas.Width, canvas.Height = f.Width, f.Height
			canvas.Thumbnail = s.imageManifestParts(rec, f, &body)
		}
		s.addAuthServices(rec, f, &body) // iiif_auth.go
		m.Items = append(m.Items, paintedCanvas(canvas, purl, n, body))
	}
	// A virtual object's constituents' images, each served by its
	// constituent (its file, image service and rights).
	for _, ci := range obj.constituents.images {
		n := len(m.Items) + 1
		cpurl := s.purl(ci.rec.Druid)
		f := ci.file
		body := iiifRef{ID: cpurl + "/file/" + url.PathEscape(f.Name), Type: "Image", Format: baseType(f.MimeType), Label: none(f.Name), Width: f.Width, Height: f.Height}
		canvas := iiifCanvas{ID: fmt.Sprintf("%s/iiif/canvas/%d", purl, n), Type: "Canvas", Label: none(ci.label), Width: f.Width, Height: f.Height}
		canvas.Thumbnail = s.imageManifestParts(ci.rec, f, &body)
		s.addAuthServices(ci.rec, f, &body)
		m.Items = append(m.Items, paintedCanvas(canvas, purl, n, body))
	}
	// A virtual object's thumbnail is its constituent's image that its
	// thumb names, when it paints it and anyone may fetch it.
	if ct := rec.ConstituentThumb; m.Thumbnail == nil && ct.Name != "" {
		for _, ci := range obj.constituents.images {
			if ci.rec.Druid == ct.Object && ci.file.Name == ct.Name && ci.rec.Rights.FileWorldReadable(ct.Name, s.cfg.Now()) {
				var body iiifRef
				m.Thumbnail = s.imageManifestParts(ci.rec, ci.file, &body)
				break
			}
		}
	}
	// The other files are offered for download as renderings, only while
	// anyone may fetch them (a viewer's download link must not fail).
	if rec.Rights.WorldReadable(s.cfg.Now()) {
		for _, res := range rec.Resources {
			for _, f := range res.Files {
				if painted[f.Name] {
					continue
				}
				label := res.Label
				if label == "" {
					label = f.Name
				}
				m.Rendering = append(m.Rendering, iiifRef{ID: fileURL(f.Name), Type: renderingType(f.MimeType), Label: none(label + " (" + f.Name + ")"), Format: baseType(f.MimeType)})
			}
		}
	}
	if rec.ContentType == "book" {
		m.Behavior = []string{"paged"}
	}
	if m.Type == "Manifest" && len(m.Items) == 0 {
		// Never reached: load builds a manifest only when HasManifest.
		return nil, fmt.Errorf("%s has nothing to paint on a canvas", rec.Druid.Qualified())
	}
	return json.MarshalIndent(m, "", "  ")
}

// iiifRights turns a license URI into the form IIIF requires (http, not
// https, and only Creative Commons or RightsStatements.org); "" otherwise.
// A Creative Commons licence named by its legal code page (".../legalcode",
// as Cocina-era records write it) is the licence's own URI: IIIF names
// the licence, not a page about it.
func iiifRights(license string) string {
	u := strings.Replace(strings.TrimSpace(license), "https://", "http://", 1)
	for _, prefix := range []string{"http://creativecommons.org/licenses/", "http://creativecommons.org/publicdomain/", "http://rightsstatements.org/vocab/"} {
		if strings.HasPrefix(u, prefix) {
			if prefix != "http://rightsstatements.org/vocab/" {
				u = strings.TrimSuffix(u, "legalcode")
			}
			return u
		}
	}
	return ""
}

func baseType(mimetype string) string {
	t, _, _ := strings.Cut(mimetype, ";")
	return strings.TrimSpace(strings.ToLower(t))
}

func renderingType(mimetype string) string {
	switch t := baseType(mimetype); {
	case strings.HasPrefix(t, "image/"):
		return "Image"
	case strings.HasPrefix(t, "audio/"):
		return "Sound"
	case strings.HasPrefix(t, "video/"):
		return "Video"
	case t == "application/pdf" || strings.HasPrefix(t, "text/"):
		return "Text"
	default:
		return "Dataset"
	}
}

// paintedCanvas returns canvas, the manifest's n-th, with its one
// annotation page painting body on it.
func paintedCanvas(canvas iiifCanvas, purl string, n int, body iiifRef) iiifCanvas {
	canvas.Items = []iiifPage{{
		ID:   fmt.Sprintf("%s/iiif/page/%d", purl, n),
		Type: "AnnotationPage",
		Items: []iiifAnnotation{{
			ID:         fmt.Sprintf("%s/iiif/annotation/%d", purl, n),
			Type:       "Annotation",
			Motivation: "painting",
			Body:       body,
			Target:     canvas.ID,
		}},
	}}
	return canvas
}
