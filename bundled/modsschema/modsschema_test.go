package modsschema_test

import (
	"path/filepath"
	"testing"

	"github.com/sitelib/sitesvc/bundled/modsschema"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestSameAsShared: the built-in schema files are ../shared's, byte for byte.
func TestSameAsShared(t *testing.T) {
	dir := filepath.Join(testkit.SharedDir(t), "data", "schemas", "mods")
	testkit.SameFiles(t, modsschema.FS(), dir, ".")
}
