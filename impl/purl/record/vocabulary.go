package record

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// vocabulary names, for each element of the public XML record the service
// reads (by its path of local names under publicObject), the child
// elements and the attributes ("@name") it knows. It is not a whitelist:
// nothing is refused for being missing from it. It says how a known name
// is spelled (a name that matches one but for case is respelled, since the
// record's readers match names exactly) and which names to report as
// unknown to the publisher (kept as they are, and served).
var vocabulary = map[string][]string{
	"": {"identityMetadata", "versionMetadata", "contentMetadata", "rightsMetadata", "thumb", "releaseData",
		"@objectId", "@id", "@published", "@publishVersion"},
	"identityMetadata": {"objectType", "objectLabel", "sourceId", "otherId", "release", "objectId",
		"objectCreator", "objectAdminClass", "adminPolicy", "agreementId", "tag", "displayType",
		"citationTitle", "citationCreator", "callSequenceId", "barcode", "catkey"},
	"identityMetadata/sourceId": {"@source"},
	"identityMetadata/otherId":  {"@name", "@source"},
	"identityMetadata/release":  {"@to", "@what", "@date", "@who", "@release"},
	"versionMetadata":           {"@objectId", "version"},
	"versionMetadata/version":   {"@versionId", "@tag", "@date", "description"},
	"contentMetadata": {"@objectId", "@type", "@id", "@stacks", "resource", "thumb", "bookData",
		"@publish", "@shelve", "@preserve"},
	"contentMetadata/thumb":    {"@objectId", "@fileId"},
	"contentMetadata/bookData": {"@readingOrder"},
	"contentMetadata/resource": {"@id", "@sequence", "@type", "@objectId", "@thumb", "label", "attr",
		"file", "externalFile", "relationship", "@publish", "@shelve", "@preserve"},
	"contentMetadata/resource/attr":         {"@name"},
	"contentMetadata/resource/externalFile": {"@objectId", "@resourceId", "@fileId", "@mimetype", "imageData"},
	// A virtual object's image lives in its constituent: the pixel size
	// the repository wrote for it.
	"contentMetadata/resource/externalFile/imageData": {"@width", "@height"},
	"contentMetadata/resource/relationship":           {"@type", "@objectId"},
	"contentMetadata/resource/file": {"@id", "@mimetype", "@size", "@publish", "@shelve", "@preserve",
		"@role", "@format", "@dataType", "@deliver", "@use", "@language", "imageData", "mediaData", "videoData", "audioData",
		"checksum", "location", "geoData", "attr", "provider_checksum", "provider_md5", "provider_sha1"},
	"contentMetadata/resource/file/imageData": {"@width", "@height"},
	"contentMetadata/resource/file/mediaData": {"@duration", "@height", "@width", "@frameRate", "@sampleRate", "@channels"},
	"contentMetadata/resource/file/videoData": {"@duration", "@height", "@width", "@frameRate"},
	"contentMetadata/resource/file/audioData": {"@duration", "@sampleRate", "@channels"},
	"contentMetadata/resource/file/checksum":  {"@type"},
	"contentMetadata/resource/file/location":  {"@type"},
	"contentMetadata/resource/file/attr":      {"@name"},
	"rightsMetadata":                          {"access", "use", "copyright", "@objectId"},
	"rightsMetadata/access":                   {"@type", "machine", "human", "file"},
	"rightsMetadata/access/machine":           {"world", "group", "location", "agent", "none", "embargoReleaseDate", "cdl", "@type"},
	"rightsMetadata/access/machine/world":     {"@rule"},
	"rightsMetadata/access/machine/group":     {"@rule"},
	"rightsMetadata/access/machine/location":  {"@rule"},
	"rightsMetadata/access/machine/agent":     {"@rule"},
	"rightsMetadata/access/machine/cdl":       {"group", "world", "location"},
	"rightsMetadata/access/human":             {"@type"},
	"rightsMetadata/use":                      {"human", "machine", "license"},
	"rightsMetadata/use/human":                {"@type"},
	"rightsMetadata/use/machine":              {"@type", "@uri"},
	"rightsMetadata/copyright":                {"human", "machine"},
	"rightsMetadata/copyright/human":          {"@type"},
	"releaseData":                             {"release"},
	"releaseData/release":                     {"@to", "@what", "@date", "@who", "@release"},
}

// vocabularyIndex maps path → lower-cased name → spelling.
var vocabularyIndex = func() map[string]map[string]string {
	idx := make(map[string]map[string]string, len(vocabulary))
	for path, names := range vocabulary {
		m := make(map[string]string, len(names))
		for _, n := range names {
			m[strings.ToLower(n)] = n
		}
		idx[path] = m
	}
	return idx
}()

// unknownNames collects the unknown names met while reading a record, so
// that the publisher is told once per kind, with a count, rather than once
// per occurrence.
type unknownNames struct {
	counts map[string]int
	order  []string
}

func (u *unknownNames) add(what string) {
	if u.counts == nil {
		u.counts = map[string]int{}
	}
	if u.counts[what] == 0 {
		u.order = append(u.order, what)
	}
	u.counts[what]++
}

// warnings lists them in the order first met.
func (u *unknownNames) warnings() []string {
	var out []string
	for _, w := range u.order {
		n := u.counts[w]
		if n == 1 {
			out = append(out, w)
		} else {
			out = append(out, fmt.Sprintf("%s (%d times)", w, n))
		}
	}
	return out
}

// canonicalize walks e (an element with no namespace at path) and respells
// names that match a known one but for case; it reports the respellings
// and the unknown names. Elements in a namespace and the content of
// unknown elements are left as they are. It returns whether it changed
// anything.
func canonicalize(e *xnode, path string, report *unknownNames) bool {
	known, ok := vocabularyIndex[path]
	if !ok {
		return false
	}
	changed := false
	where := path
	if where == "" {
		where = "publicObject"
	}
	for i, a := range e.attrs {
		if a.Name.Space != "" || isNSDecl(a) {
			continue
		}
		spelled, ok := known["@"+strings.ToLower(a.Name.Local)]
		switch {
		case !ok:
			report.add(fmt.Sprintf("%s/@%s is not an attribute the service knows: kept as it is", where, a.Name.Local))
		case spelled[1:] != a.Name.Local:
			if _, both := e.attr(spelled[1:]); both {
				// Respelled, it would repeat an attribute (not XML).
				report.add(fmt.Sprintf("%s/@%s is kept as it is beside @%s, which is read", where, a.Name.Local, spelled[1:]))
				continue
			}
			report.add(fmt.Sprintf("%s/@%s is read as @%s", where, a.Name.Local, spelled[1:]))
			e.attrs[i].Name.Local = spelled[1:]
			changed = true
		}
	}
	for _, k := range e.elements() {
		if k.name.Space != "" {
			continue // a namespaced element (rdf:RDF, oai_dc:dc, mods…)
		}
		if path == "" && k.lookup("") != "" {
			continue // a child in a default namespace: mods, or another vocabulary
		}
		spelled, ok := known[strings.ToLower(k.name.Local)]
		switch {
		case !ok:
			report.add(fmt.Sprintf("%s/%s is not an element the service knows: kept as it is", where, k.name.Local))
			continue
		case spelled != k.name.Local:
			report.add(fmt.Sprintf("%s/%s is read as %s", where, k.name.Local, spelled))
			k.name.Local = spelled
			changed = true
		}
		child := spelled
		if path != "" {
			child = path + "/" + spelled
		}
		if canonicalize(k, child, report) {
			changed = true
		}
	}
	return changed
}

// knownTopLevel reports whether q is one of the top-level children the
// service reads.
func knownTopLevel(q xml.Name) bool {
	if containsName(seedChildren, q) || q == nameThumb || q == nameReleaseData {
		return true
	}
	return false
}
