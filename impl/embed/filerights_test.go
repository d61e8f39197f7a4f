package embed

import (
	"testing"
	"time"
)

// TestFileRightsInTheViewer: in an object anyone may read, a file with
// rights of its own that anyone may not read is marked restricted (the
// viewer offers no download of it), has no sizes, and the zip is not
// offered; when that file's embargo is released while the object is
// cached, the viewer offers it again.
func TestFileRightsInTheViewer(t *testing.T) {
	e := newEnv(t)
	f := fixtures[fileDruid]
	// the fixture's one read access stays the object's; a second names a file
	f.read = `<world/></machine></access><access type="read"><file>all.zip</file><machine><world/><embargoReleaseDate>2026-03-02</embargoReleaseDate>`
	e.stub.setBody(fileDruid, f.xml(fileDruid))
	path := "/iframe?" + q("url", e.purl(fileDruid))
	viewer := func() viewerObject {
		t.Helper()
		_, doc := e.get(t, path)
		return dataObject(t, doc)
	}
	restricted := func(obj viewerObject) map[string]bool {
		out := map[string]bool{}
		for _, vf := range obj.Files {
			out[vf.Name] = vf.Restricted
		}
		return out
	}
	obj := viewer()
	if obj.Access.Restricted || obj.Access.Level != "world" {
		t.Fatalf("the object is open: %+v", obj.Access)
	}
	if r := restricted(obj); r["survey data.csv"] || !r["all.zip"] {
		t.Errorf("restricted files %v, want only all.zip", r)
	}
	if obj.Zip != "" {
		t.Errorf("zip %q offered although anyone may not read all.zip", obj.Zip)
	}
	e.clock.advance(13 * time.Hour) // past the file's release day
	obj = viewer()
	if r := restricted(obj); r["all.zip"] || r["survey data.csv"] {
		t.Errorf("after the file's embargo: restricted %v", r)
	}
	if obj.Zip == "" {
		t.Error("no zip after the file's embargo")
	}
}
