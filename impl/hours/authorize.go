package hours

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/sitelib/sitesvc/impl/auth"
)

// Authorisation comes before work: apiserve's edge resolves the token
// (bearer, http.go), runs scope and bounds the body by writeBodyLimits
// before anything reads the body (the validator's own security check comes
// after kin-openapi has read it whole). A token without the right role is
// refused 403 without the body being read or parsed, and no write body is
// read beyond what its operation's largest valid document needs
// (docs/hours.md, "Limits").

// adminOnlyOperations are the writes only an admin may make; every other
// write is scoped to the library in its path (admin or editor:<library>).
var adminOnlyOperations = map[string]bool{
	"createLibrary": true,
	"deleteLibrary": true,
}

// writeBodyLimits is the body limit of each write operation with a request
// document, in bytes: the largest valid document of the operation with room
// to spare for pretty-printing. Every string attribute is bounded by the
// contract (names 200 characters, exception notes 500, library and
// location notes and about URLs 2000, slugs 64, periods 6 a day, days 7),
// so the largest valid compact documents are at most about 40 KiB even
// with every character written as a \uXXXX surrogate pair
// (TestWriteBodyLimits builds them); 64 KiB holds them indented, and
// nothing much larger can be valid.
var writeBodyLimits = map[string]int64{
	"createLibrary":   64 << 10,
	"updateLibrary":   64 << 10,
	"createLocation":  64 << 10,
	"updateLocation":  64 << 10,
	"createTerm":      16 << 10,
	"updateTerm":      16 << 10,
	"createSchedule":  64 << 10,
	"updateSchedule":  64 << 10,
	"createException": 64 << 10,
	"updateException": 64 << 10,
}

// defaultWriteBodyLimit bounds a write the table does not name (an
// operation added to the contract later): refused rather than unbounded.
// (A DELETE's ignored body has apiserve.IgnoredBodyLimit, also 16 KiB.)
const defaultWriteBodyLimit = 16 << 10

// scope is the edge's check (apiserve.Policy.Scope) of an authorised
// token against the operation and the library in the path, run before
// the body is read.
func (s *Service) scope(req *http.Request, operationID string, p auth.Principal) error {
	_, err := s.permits(req.Context(), p, libraryInPath(req.URL.EscapedPath()), adminOnlyOperations[operationID])
	return err
}

// libraryInPath is the library_id of a path "/libraries/{library_id}…"
// ("" for "/libraries" itself).
func libraryInPath(escaped string) string {
	rest, ok := strings.CutPrefix(escaped, "/libraries/")
	if !ok {
		return ""
	}
	seg, _, _ := strings.Cut(rest, "/")
	if u, err := url.PathUnescape(seg); err == nil {
		seg = u
	}
	// "/libraries/{library_id}.json" names the library without the suffix.
	return strings.TrimSuffix(seg, ".json")
}
