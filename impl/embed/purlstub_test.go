package embed

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fixture is a public XML record served by the PURL stand-in.
type fixture struct {
	title       string
	collection  string // druid, "" for none
	contentType string
	resources   string // contentMetadata children
	read        string // rightsMetadata read machine content
	discover    string // rightsMetadata discover machine content; default <world/>
	use         string
}

func (f fixture) xml(druid string) string {
	discover := f.discover
	if discover == "" {
		discover = "<world/>"
	}
	rel := ""
	if f.collection != "" {
		rel = `<fedora:isMemberOfCollection rdf:resource="info:fedora/druid:` + f.collection + `"/>`
	}
	use := ""
	if f.use != "" {
		use = `<use><human type="useAndReproduction">` + html.EscapeString(f.use) + `</human><license>https://creativecommons.org/licenses/by/4.0/</license></use>`
	}
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<publicObject objectId="druid:%[1]s" published="2026-01-15T10:00:00Z">
  <identityMetadata><objectType>item</objectType><objectLabel>label of %[1]s</objectLabel></identityMetadata>
  <versionMetadata objectId="druid:%[1]s"><version versionId="1" date="2026-01-10T09:00:00Z"><description>Initial</description></version></versionMetadata>
  <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:fedora="info:fedora/fedora-system:def/relations-external#">
    <rdf:Description rdf:about="info:fedora/druid:%[1]s">%[2]s</rdf:Description>
  </rdf:RDF>
  <contentMetadata objectId="druid:%[1]s" type="%[3]s">%[4]s</contentMetadata>
  <rightsMetadata>
    <access type="discover"><machine>%[5]s</machine></access>
    <access type="read"><machine>%[6]s</machine></access>
    %[7]s
  </rightsMetadata>
  <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:title>%[8]s</dc:title>
  </oai_dc:dc>
</publicObject>
`, druid, rel, f.contentType, f.resources, discover, f.read, use, html.EscapeString(f.title))
}

const (
	imageDruid      = "bb000kk0000"
	mediaDruid      = "bc111dd1111"
	pdfDruid        = "bd222ff2222"
	fileDruid       = "bf333gg3333"
	groupDruid      = "bg444hh4444"
	citationDruid   = "bh555jj5555"
	darkDruid       = "bj666kk6666"
	hostileDruid    = "bk777mm7777"
	collectionDruid = "cc000dd0000"
)

var fixtures = map[string]fixture{
	imageDruid: {
		title: "Two views of the reading room", collection: collectionDruid, contentType: "image",
		resources: `<resource id="r1" sequence="1" type="image"><label>Recto</label><file id="image1.png" mimetype="image/png" size="20771"><imageData width="640" height="480"/></file></resource>`,
		read:      "<world/>", use: "Free to use with attribution.",
	},
	mediaDruid: {
		title: "Oral history interview", contentType: "media",
		resources: `<resource id="r1" sequence="1" type="audio"><label>Side A</label><file id="side-a.mp3" mimetype="audio/mpeg" size="1048576"><mediaData duration="12.5"/></file></resource>` +
			`<resource id="r2" sequence="2" type="video"><label>Film</label><file id="film.mp4" mimetype="video/mp4" size="2097152"><mediaData duration="3"/></file></resource>`,
		read: "<world/>",
	},
	pdfDruid: {
		title: "Annual report", contentType: "document",
		resources: `<resource id="r1" sequence="1" type="document"><label>Report</label><file id="report.pdf" mimetype="application/pdf" size="4096"/></resource>`,
		read:      "<world/>",
	},
	fileDruid: {
		title: "Survey data", contentType: "file",
		resources: `<resource id="r1" sequence="1" type="file"><label>Data</label><file id="survey data.csv" mimetype="text/csv" size="1234"/></resource>` +
			`<resource id="r2" sequence="2" type="file"><label>Archive</label><file id="all.zip" mimetype="application/zip" size="5000000"/></resource>`,
		read: "<world/>",
	},
	groupDruid: {
		title: "Members-only photograph", contentType: "image",
		resources: `<resource id="r1" sequence="1" type="image"><file id="p.png" mimetype="image/png" size="10"><imageData width="1" height="1"/></file></resource>`,
		read:      "<group>sitelib</group>",
	},
	citationDruid: {
		title: "Citation-only thesis", contentType: "document",
		resources: `<resource id="r1" sequence="1" type="document"><file id="t.pdf" mimetype="application/pdf" size="10"/></resource>`,
		read:      "<none/>",
	},
	darkDruid: {
		title: "Dark", contentType: "file", discover: "<none/>", read: "<none/>",
	},
	hostileDruid: {
		title:       `"><script>alert(1)</script><a href="javascript:alert(2)">x</a>`,
		collection:  collectionDruid,
		contentType: "file",
		resources:   `<resource id="r1" sequence="1" type="file"><file id="x&quot;&gt;&lt;img src=x onerror=alert(3)&gt;.txt" mimetype="text/plain" size="1"/></resource>`,
		read:        "<world/>",
	},
}

// purlStub is an httptest stand-in for the PURL service: it serves the
// fixtures as /purl/{druid}.xml with ETags and conditional GET, and records
// every request it receives.
type purlStub struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests []string // "GET /purl/x.xml [If-None-Match]"
	status   int      // when non-zero, every request answers this status
	override map[string]string
}

func newPurlStub(t testing.TB) *purlStub {
	p := &purlStub{override: map[string]string{}}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *purlStub) base() string { return p.srv.URL + "/purl" }

func (p *purlStub) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.requests = append(p.requests, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("If-None-Match"))
	status := p.status
	p.mu.Unlock()
	if status != 0 {
		http.Error(w, "stub failure", status)
		return
	}
	druid, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/purl/"), ".xml")
	if !ok || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	p.mu.Lock()
	body, overridden := p.override[druid]
	p.mu.Unlock()
	if !overridden {
		f, ok := fixtures[druid]
		if !ok {
			http.NotFound(w, r)
			return
		}
		body = f.xml(druid)
	}
	if f, ok := fixtures[druid]; ok && f.discover == "<none/>" {
		// The real PURL service answers 404 for dark objects.
		http.NotFound(w, r)
		return
	}
	etag := fmt.Sprintf(`"%x"`, len(body)*31+int(body[len(body)/2]))
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	fmt.Fprint(w, body)
}

func (p *purlStub) setStatus(s int) {
	p.mu.Lock()
	p.status = s
	p.mu.Unlock()
}

func (p *purlStub) setBody(druid, body string) {
	p.mu.Lock()
	p.override[druid] = body
	p.mu.Unlock()
}

func (p *purlStub) log() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// retitle publishes druid's fixture again under another title.
func (p *purlStub) retitle(druid, title string) {
	changed := fixtures[druid]
	changed.title = title
	p.setBody(druid, changed.xml(druid))
}
