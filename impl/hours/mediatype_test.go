package hours

import (
	"strings"
	"testing"
)

func FuzzMediaTypes(f *testing.F) {
	for _, s := range []string{"application/vnd.api+json", "application/vnd.api+json; charset=utf-8", `application/vnd.api+json; profile="a b"`, "*/*;q=0.1, text/html", ";;;", `application/vnd.api+json; ext="x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		for _, atomic := range []bool{false, true} {
			_ = acceptsJSONAPI([]string{header}, atomic)
			// Adding a plain JSON:API media type always makes Accept acceptable.
			if !acceptsJSONAPI([]string{header, "application/vnd.api+json"}, atomic) {
				t.Fatalf("Accept %q plus a plain JSON:API type refused", header)
			}
			msg := jsonapiContentType(header, atomic)
			if msg == "" && !strings.HasPrefix(strings.ToLower(strings.TrimSpace(header)), "application/vnd.api+json") {
				t.Fatalf("Content-Type %q accepted", header)
			}
			// Only the operations endpoint takes the Atomic Operations extension, and it takes nothing else.
			if ext := strings.Contains(header, "ext="); msg == "" && ext != atomic {
				t.Fatalf("Content-Type %q accepted (atomic %v)", header, atomic)
			}
		}
	})
}

func TestPointerToMember(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ pointer, msg, want string }{
		{"/data/attributes", `request body at /data/attributes: property "colour" is unsupported`, "/data/attributes/colour"},
		{"/data", `property "a/b~c" is unsupported`, "/data/a~1b~0c"},
		{"/data/type", "value is not one of the allowed values", "/data/type"},
		{"", `property "x" is unsupported`, ""},
	} {
		if got := pointerToMember(c.pointer, c.msg); got != c.want {
			t.Errorf("pointerToMember(%q, %q) = %q, want %q", c.pointer, c.msg, got, c.want)
		}
	}
}
