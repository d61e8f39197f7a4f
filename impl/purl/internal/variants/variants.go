// Package variants holds public XML records in the forms real
// repositories have published (issue 14), written by the project for its
// tests — not copies of real records. Each variant is one object: its
// public.xml and the files it lists, and what the service must make of it.
package variants

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
)

// Variant is one object in one real-world record form.
type Variant struct {
	Name   string // what is unusual about it
	Druid  string // bare druid
	Public string // public.xml as published
	Files  map[string][]byte
	// Title is the title the page and manifest must show.
	Title string
	// Warning is a substring of a publish warning the variant must cause
	// ("" when none is expected).
	Warning string
	// MODSVersion is the version the served .mods must declare.
	MODSVersion string
	// MODSDerived says the served .mods is derived from Dublin Core.
	MODSDerived bool
	// Thumb is the contentMetadata/thumb the served record must name.
	Thumb string
	// Releases is the number of identityMetadata/release elements served.
	Releases int
	// Embargoed says the files are under embargo (until 2099).
	Embargoed bool
}

// PNG is a small deterministic PNG image of w×h pixels.
func PNG(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(40 * x), uint8(60 * y), 120, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err) // encoding an in-memory RGBA image cannot fail
	}
	return b.Bytes()
}

// WriteDir writes the variant as an object directory (public.xml and
// its files) under dir and returns the object's directory.
func (v Variant) WriteDir(dir string) (string, error) {
	d := filepath.Join(dir, v.Druid)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(d, "public.xml"), []byte(v.Public), 0o644); err != nil {
		return "", err
	}
	for name, data := range v.Files {
		if err := os.WriteFile(filepath.Join(d, name), data, 0o644); err != nil {
			return "", err
		}
	}
	return d, nil
}

const (
	nsRDF  = `xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:fedora="info:fedora/fedora-system:def/relations-external#"`
	nsDC   = `xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"`
	rights = `<rightsMetadata>
    <access type="discover"><machine><world/></machine></access>
    <access type="read"><machine><world/></machine></access>
    <use><human type="useAndReproduction">Free to use with attribution.</human><license>https://creativecommons.org/licenses/by/4.0/</license></use>
  </rightsMetadata>`
)

func identity(label string) string {
	return fmt.Sprintf(`<identityMetadata>
    <objectType>item</objectType>
    <objectLabel>%s</objectLabel>
    <sourceId source="variants">%s</sourceId>
  </identityMetadata>`, label, strings.ToLower(strings.ReplaceAll(label, " ", "-")))
}

func rdf(id string) string {
	return fmt.Sprintf(`<rdf:RDF %s>
    <rdf:Description rdf:about="info:fedora/druid:%s"/>
  </rdf:RDF>`, nsRDF, id)
}

func content(objectID, file string, size int) string {
	return fmt.Sprintf(`<contentMetadata objectId="%s" type="image">
    <resource id="r1" sequence="1" type="image">
      <label>Image 1</label>
      <file id="%s" mimetype="image/png" size="%d" publish="yes" shelve="yes"><imageData width="4" height="3"/></file>
    </resource>
  </contentMetadata>`, objectID, file, size)
}

func versions(id string) string {
	return fmt.Sprintf(`<versionMetadata objectId="druid:%s">
    <version versionId="1" date="2014-03-01T12:00:00Z"><description>Initial version</description></version>
  </versionMetadata>`, id)
}

func dc(title string) string {
	t := ""
	if title != "" {
		t = "<dc:title>" + title + "</dc:title>\n    "
	}
	return fmt.Sprintf(`<oai_dc:dc %s>
    %s<dc:creator>Variant, Vera</dc:creator>
    <dc:date>2014</dc:date>
    <dc:type>StillImage</dc:type>
    <dc:language>eng</dc:language>
  </oai_dc:dc>`, nsDC, t)
}

func embeddedMODS(version, title, extra string) string {
	return fmt.Sprintf(`<mods xmlns="http://www.loc.gov/mods/v3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="%s" xsi:schemaLocation="http://www.loc.gov/mods/v3 http://www.loc.gov/standards/mods/v3/mods-%s.xsd">
    <titleInfo><title>%s</title></titleInfo>
    <typeOfResource>still image</typeOfResource>%s
  </mods>`, version, strings.ReplaceAll(version, ".", "-"), title, extra)
}

// publicObject is a public XML document: the XML declaration, the
// publicObject element with attrs, and one indented line per child.
func publicObject(attrs string, children ...string) string {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<publicObject " + attrs + ">\n")
	for _, c := range children {
		b.WriteString("  " + c + "\n")
	}
	b.WriteString("</publicObject>\n")
	return b.String()
}

// usualObject is the public object of druid id published at published,
// its children in the usual order: identityMetadata with label, the
// versions, the RDF and the contentMetadata of one image of size bytes,
// then rest.
func usualObject(id, published string, size int, label string, rest ...string) string {
	children := []string{identity(label), versions(id), rdf(id), content("druid:"+id, "image1.png", size)}
	return publicObject(`objectId="druid:`+id+`" published="`+published+`"`, append(children, rest...)...)
}

// All returns every variant.
func All() []Variant {
	img := PNG(4, 3)
	files := map[string][]byte{"image1.png": img}
	n := len(img)
	var out []Variant

	// Children in another order (contentMetadata second, rdf:RDF after
	// rightsMetadata) and no versionMetadata.
	id := "bt101cd1001"
	out = append(out, Variant{
		Name: "order-no-version", Druid: id, Files: files, Title: "Variant in another order",
		Warning: "no versionMetadata", MODSVersion: "3.6", MODSDerived: true,
		Public: publicObject(`objectId="druid:`+id+`" published="2015-06-01T08:00:00Z"`,
			identity("Variant in another order"), content("druid:"+id, "image1.png", n), rights, rdf(id), dc("Variant in another order")),
	})

	// Eight top-level children: the six, an embedded MODS, a thumb and
	// releaseData.
	id = "bt102cd1002"
	out = append(out, Variant{
		Name: "eight-children", Druid: id, Files: files, Title: "Variant with eight children",
		MODSVersion: "3.6", Thumb: "image1.png", Releases: 2,
		Public: publicObject(`objectId="druid:`+id+`" published="2016-02-02T09:30:00Z" publishVersion="repository-4.2"`,
			identity("Variant with eight children"), versions(id), rdf(id), content("druid:"+id, "image1.png", n), rights,
			dc("Variant with eight children"), embeddedMODS("3.6", "Variant with eight children", ""),
			"<thumb>"+id+"/image1.png</thumb>",
			`<releaseData>
    <release to="Searchworks">true</release>
    <release to="Earthworks">false</release>
  </releaseData>`),
	})

	// publicObject/@id instead of @objectId; contentMetadata/@objectId
	// without the druid: prefix.
	id = "bt103cd1003"
	out = append(out, Variant{
		Name: "id-attribute", Druid: id, Files: files, Title: "Variant identified by id",
		MODSVersion: "3.6", MODSDerived: true,
		Public: publicObject(`id="druid:`+id+`" published="2017-09-09T10:00:00-07:00"`,
			identity("Variant identified by id"), versions(id), rdf(id), content(id, "image1.png", n), rights, dc("Variant identified by id")),
	})

	// oai_dc:dc without dc:title, with an embedded MODS record: the MODS
	// title is shown.
	id = "bt104cd1004"
	out = append(out, Variant{
		Name: "no-dc-title-mods", Druid: id, Files: files, Title: "Title from the MODS record",
		Warning: "embedded MODS title", MODSVersion: "3.6",
		Public: usualObject(id, "2018-01-01T00:00:00Z", n, "Label of the fourth variant",
			rights, dc(""), embeddedMODS("3.6", "Title from the MODS record", "")),
	})

	// oai_dc:dc without dc:title, no MODS and no objectLabel: the
	// identifier is shown.
	id = "bt105cd1005"
	out = append(out, Variant{
		Name: "no-title", Druid: id, Files: files, Title: "druid:" + id,
		Warning: "the title shown is the identifier", MODSVersion: "3.6", MODSDerived: true,
		Public: usualObject(id, "2018-01-02T00:00:00Z", n, "",
			rights, dc("")),
	})

	// An embargo written as <none/> plus embargoReleaseDate.
	id = "bt106cd1006"
	out = append(out, Variant{
		Name: "embargo-none", Druid: id, Files: files, Title: "Variant under embargo",
		MODSVersion: "3.6", MODSDerived: true, Embargoed: true,
		Public: usualObject(id, "2019-05-05T05:05:05Z", n, "Variant under embargo",
			`<rightsMetadata>
    <access type="discover"><machine><world/></machine></access>
    <access type="read"><machine><embargoReleaseDate>2099-12-31</embargoReleaseDate><none/></machine></access>
  </rightsMetadata>`, dc("Variant under embargo")),
	})

	// Embedded MODS 3.7 that is valid MODS 3.6 after the version change.
	id = "bt107cd1007"
	out = append(out, Variant{
		Name: "mods-3.7", Druid: id, Files: files, Title: "Variant with MODS 3.7",
		Warning: "served as MODS 3.6", MODSVersion: "3.6",
		Public: usualObject(id, "2020-07-07T07:07:07Z", n, "Variant with MODS 3.7",
			rights, dc("Variant with MODS 3.7"), embeddedMODS("3.7", "Variant with MODS 3.7", "")),
	})

	// Embedded MODS 3.7 that uses originInfo/displayDate (new in 3.7),
	// which MODS 3.6 does not allow: .mods is MODS 3.6 without it.
	id = "bt108cd1008"
	out = append(out, Variant{
		Name: "mods-3.7-only", Druid: id, Files: files, Title: "Variant with MODS 3.7 only",
		Warning: `originInfo/displayDate "circa 1900" is not allowed by MODS 3.6`, MODSVersion: "3.6",
		Public: usualObject(id, "2021-08-08T08:08:08Z", n, "Variant with MODS 3.7 only",
			rights, dc("Variant with MODS 3.7 only"), embeddedMODS("3.7", "Variant with MODS 3.7 only", "\n    <originInfo><displayDate>circa 1900</displayDate></originInfo>")),
	})
	return out
}
