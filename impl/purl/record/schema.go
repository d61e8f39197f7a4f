package record

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MODSSchema checks MODS records against the MODS 3.6 XML Schema with
// xmllint (Debian package libxml2-utils). ParseMODS checks the structure
// the service relies on; this is the full check, run before a record is
// published, so that every served .mods validates against the schema.
// Go has no XML Schema engine, and xmllint is the validator the project's
// tests already use.
type MODSSchema struct {
	xmllint string
	xsd     string
	timeout time.Duration

	// For a schema built into the binary (NewMODSSchemaFS): the files are
	// written to a private directory, since xmllint reads schemas from
	// disk, and written again when that directory has gone (a temp-file
	// cleaner may remove it under a long-running server).
	fsys fs.FS
	dir  string
	mu   sync.Mutex

	// spellings maps the lower-case form of every element and attribute
	// name the schema declares to its spelling (read once from the XSD):
	// PrepareMODS respells a name the schema rejects that is one of these
	// but for case.
	spellingsOnce sync.Once
	spellings     schemaSpellings
}

// schemaSpellings are the names a schema declares, by lower-case form,
// and the elements whose content is open (any element may be inside
// them, as inside extension and accessCondition).
type schemaSpellings struct {
	elements, attributes map[string]string
	open                 map[string]bool
	// children maps an element name to the names of the elements its
	// content may hold (over all its declarations).
	children map[string]map[string]bool
}

// contentModels reads, from an XSD's tree, which elements each element
// may hold: its type's element declarations and references, those of
// the groups it refers to and of the types it extends or restricts. Names
// only (no order or counts): enough to know where a misplaced element
// belongs, which the schema check then confirms.
func contentModels(schema *xnode) map[string]map[string]bool {
	types, groups := map[string]*xnode{}, map[string]*xnode{}
	for _, d := range schema.elements() {
		name, _ := d.attr("name")
		switch d.name.Local {
		case "complexType", "simpleType":
			types[name] = d
		case "group":
			groups[name] = d
		}
	}
	var childNames func(n *xnode, seen map[*xnode]bool) map[string]bool
	childNames = func(n *xnode, seen map[*xnode]bool) map[string]bool {
		out := map[string]bool{}
		if n == nil || seen[n] {
			return out
		}
		seen[n] = true
		for _, k := range n.elements() {
			switch k.name.Local {
			case "element":
				if ref, ok := k.attr("ref"); ok {
					out[localPart(ref)] = true
				} else if name, ok := k.attr("name"); ok {
					out[name] = true
				}
				continue // its own content is its own
			case "group":
				if ref, ok := k.attr("ref"); ok {
					for c := range childNames(groups[localPart(ref)], seen) {
						out[c] = true
					}
					continue
				}
			case "extension", "restriction":
				if base, ok := k.attr("base"); ok {
					for c := range childNames(types[localPart(base)], seen) {
						out[c] = true
					}
				}
			case "attribute", "attributeGroup", "annotation":
				continue
			}
			for c := range childNames(k, seen) {
				out[c] = true
			}
		}
		return out
	}
	children := map[string]map[string]bool{}
	var walk func(n *xnode)
	walk = func(n *xnode) {
		for _, k := range n.elements() {
			if name, ok := k.attr("name"); ok && k.name.Local == "element" {
				content := k
				if typ, ok := k.attr("type"); ok {
					content = types[localPart(typ)]
				}
				if children[name] == nil {
					children[name] = map[string]bool{}
				}
				for c := range childNames(content, map[*xnode]bool{}) {
					children[name][c] = true
				}
			}
			walk(k)
		}
	}
	walk(schema)
	return children
}

// localPart is a QName's local part (xs:string → string).
func localPart(qname string) string {
	if i := strings.LastIndexByte(qname, ':'); i >= 0 {
		return qname[i+1:]
	}
	return qname
}

// wrapper is the one element that may stand in parent and may hold child,
// for a child the schema does not allow in parent itself ("" when child
// may stand there, its place being wrong, or when none or several could
// hold it): a placeTerm written directly in originInfo belongs in a place.
func (s schemaSpellings) wrapper(parent, child string) string {
	allowed := s.children[parent]
	if allowed == nil || allowed[child] {
		return ""
	}
	found := ""
	for w := range allowed {
		if s.children[w][child] {
			if found != "" {
				return ""
			}
			found = w
		}
	}
	return found
}

var (
	declaredName = regexp.MustCompile(`<(?:xs:|xsd:)?(element|attribute)\s+name="([^"]+)"`)
	// typedElement is an element declared with a named type; openType a
	// complex type that extends extensionDefinition (MODS's open
	// content: a sequence of xs:any).
	typedElement = regexp.MustCompile(`<(?:xs:|xsd:)?element\s+name="([^"]+)"\s+type="([^"]+)"`)
	openType     = regexp.MustCompile(`(?s)<(?:xs:|xsd:)?complexType\s+name="([^"]+)"[^>]*>\s*<(?:xs:|xsd:)?complexContent[^>]*>\s*<(?:xs:|xsd:)?extension\s+base="extensionDefinition"`)
)

// names returns the element and attribute names the schema declares,
// read from its main XSD (not the schemas it imports: their attributes,
// xml:id and xlink:type, are in their own namespaces, and are written
// with a prefix; read as unprefixed names, xml's id made MODS's ID
// ambiguous and dropped); a name declared in two spellings that differ
// only by case is left out, since a third spelling could be either.
func (m *MODSSchema) names() schemaSpellings {
	m.spellingsOnce.Do(func() {
		m.spellings = schemaSpellings{elements: map[string]string{}, attributes: map[string]string{}, open: map[string]bool{}}
		if err := m.materialize(); err != nil {
			return
		}
		ambiguous := map[string]bool{}
		for _, f := range []string{m.xsd} {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			openTypes := map[string]bool{"extensionDefinition": true}
			for _, sub := range openType.FindAllStringSubmatch(string(data), -1) {
				openTypes[sub[1]] = true
			}
			for _, sub := range typedElement.FindAllStringSubmatch(string(data), -1) {
				if openTypes[sub[2]] {
					m.spellings.open[sub[1]] = true
				}
			}
			for _, sub := range declaredName.FindAllStringSubmatch(string(data), -1) {
				into := m.spellings.elements
				if sub[1] == "attribute" {
					into = m.spellings.attributes
				}
				key := sub[1] + " " + strings.ToLower(sub[2])
				if prev, ok := into[strings.ToLower(sub[2])]; ok && prev != sub[2] {
					ambiguous[key] = true
				}
				into[strings.ToLower(sub[2])] = sub[2]
			}
		}
		if data, err := os.ReadFile(m.xsd); err == nil {
			if tree, err := parseTree(data); err == nil {
				m.spellings.children = contentModels(tree)
			}
		}
		for key := range ambiguous {
			kind, lower, _ := strings.Cut(key, " ")
			if kind == "attribute" {
				delete(m.spellings.attributes, lower)
			} else {
				delete(m.spellings.elements, lower)
			}
		}
	})
	return m.spellings
}

// declares reports whether the schema declares name (an element's or an
// attribute's) in some case.
func (s schemaSpellings) declares(name string, attribute bool) bool {
	in := s.elements
	if attribute {
		in = s.attributes
	}
	_, ok := in[strings.ToLower(name)]
	return ok
}

// respelling is the spelling the schema declares for name (an element's
// or an attribute's) when name differs from it only by case.
func (s schemaSpellings) respelling(name string, attribute bool) (string, bool) {
	in := s.elements
	if attribute {
		in = s.attributes
	}
	v, ok := in[strings.ToLower(name)]
	return v, ok && v != name
}

// ErrSchemaCheck means the schema check could not run (as opposed to a
// record that fails it, which is ErrUnacceptable).
var ErrSchemaCheck = errors.New("MODS schema check failed to run")

// NewMODSSchema returns a checker for the XSD at xsd (mods-3-6.xsd, with
// the schemas it imports beside it). It fails when xmllint is not
// installed or the XSD cannot be read.
func NewMODSSchema(xsd string) (*MODSSchema, error) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		return nil, fmt.Errorf("MODS schema checks need xmllint (Debian package libxml2-utils): %w", err)
	}
	if _, err := os.Stat(xsd); err != nil {
		return nil, fmt.Errorf("MODS schema: %w", err)
	}
	m := &MODSSchema{xmllint: xmllint, xsd: xsd, timeout: 10 * time.Second}
	// The schema itself must compile; a record known to be valid proves it.
	if err := m.Validate(context.Background(), []byte(minimalMODS)); err != nil {
		return nil, fmt.Errorf("MODS schema %s: %w", xsd, err)
	}
	return m, nil
}

// NewMODSSchemaFS returns a checker for the schema main in fsys (with the
// schemas it imports beside it), such as bundled/modsschema. The files are
// copied to a new temporary directory; Close removes it.
func NewMODSSchemaFS(fsys fs.FS, main string) (*MODSSchema, error) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		return nil, fmt.Errorf("MODS schema checks need xmllint (Debian package libxml2-utils): %w", err)
	}
	dir, err := os.MkdirTemp("", "sitesvc-mods-schema-")
	if err != nil {
		return nil, fmt.Errorf("MODS schema: %w", err)
	}
	m := &MODSSchema{xmllint: xmllint, xsd: filepath.Join(dir, main), timeout: 10 * time.Second, fsys: fsys, dir: dir}
	if err := m.materialize(); err != nil {
		_ = m.Close()
		return nil, err
	}
	if err := m.Validate(context.Background(), []byte(minimalMODS)); err != nil {
		_ = m.Close()
		return nil, fmt.Errorf("built-in MODS schema %s: %w", main, err)
	}
	return m, nil
}

// materialize writes the schema files into m.dir unless the main one is
// already there.
func (m *MODSSchema) materialize() error {
	if m.fsys == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := os.Stat(m.xsd); err == nil {
		return nil
	}
	// A partly removed directory is replaced whole.
	if err := os.RemoveAll(m.dir); err != nil {
		return fmt.Errorf("MODS schema: %w", err)
	}
	if err := os.CopyFS(m.dir, m.fsys); err != nil {
		return fmt.Errorf("MODS schema: writing it for xmllint: %w", err)
	}
	return nil
}

// Close removes the files NewMODSSchemaFS wrote; for a schema on disk
// (NewMODSSchema) it does nothing.
func (m *MODSSchema) Close() error {
	if m == nil || m.fsys == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return os.RemoveAll(m.dir)
}

const minimalMODS = `<?xml version="1.0" encoding="UTF-8"?>
<mods xmlns="http://www.loc.gov/mods/v3" version="3.6"><titleInfo><title>t</title></titleInfo></mods>
`

// Validate checks doc against the schema: nil when it validates, an error
// wrapping ErrUnacceptable with xmllint's first complaint when it does not,
// an error wrapping ErrSchemaCheck when xmllint could not say.
// xmllint runs without network access and without entity substitution.
func (m *MODSSchema) Validate(ctx context.Context, doc []byte) error {
	if err := m.materialize(); err != nil {
		return fmt.Errorf("%w: %w", ErrSchemaCheck, err)
	}
	out, err := m.run(ctx, doc)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errInvalid):
		return fmt.Errorf("%w: not valid against the MODS 3.6 schema: %s", ErrUnacceptable, firstComplaint(out))
	default:
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(out))
	}
}

// firstComplaint is xmllint's first error line without the "-:LINE: "
// file prefix.
func firstComplaint(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "error") {
			if rest, ok := strings.CutPrefix(line, "-:"); ok {
				if i := strings.Index(rest, ": "); i >= 0 {
					return "line " + rest[:i] + ": " + strings.TrimSpace(rest[i+2:])
				}
			}
			return strings.TrimSpace(line)
		}
	}
	return strings.TrimSpace(out)
}

// Complaint is one error xmllint reported against the schema.
type Complaint struct {
	Line      int
	Element   string   // local name of the element it names
	Attribute string   // local name of the attribute, "" for the element itself
	Allowed   []string // the values the schema lists, for an enumeration
	Reason    string   // xmllint's words after the names
	Message   string   // the whole line, without the file name
}

var (
	complaintLine = regexp.MustCompile(`^-:(\d+): .*?error : Element '(?:\{[^}]*\})?([^']+)'(?:, attribute '(?:\{[^}]*\})?([^']+)')?: (.*)$`)
	enumSet       = regexp.MustCompile(`of the set \{(.*)\}`)
	fixedValue    = regexp.MustCompile(`fixed value constraint '((?:[^']|'')*)'`)
	enumValue     = regexp.MustCompile(`'((?:[^']|'')*)'`)
)

// Complaints checks doc against the schema and returns xmllint's
// complaints (none when it validates). A complaint that names no element
// is returned with Element "". Errors wrap ErrSchemaCheck.
func (m *MODSSchema) Complaints(ctx context.Context, doc []byte) ([]Complaint, error) {
	if err := m.materialize(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchemaCheck, err)
	}
	out, err := m.run(ctx, doc)
	if err == nil {
		return nil, nil
	}
	if !errors.Is(err, errInvalid) {
		return nil, err
	}
	var cs []Complaint
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, "error") {
			continue
		}
		c := Complaint{Message: strings.TrimPrefix(line, "-:")}
		if sub := complaintLine.FindStringSubmatch(line); sub != nil {
			c.Line, _ = strconv.Atoi(sub[1])
			c.Element, c.Attribute, c.Reason = sub[2], sub[3], shortReason(sub[4])
			if set := enumSet.FindStringSubmatch(sub[4]); set != nil {
				for _, v := range enumValue.FindAllStringSubmatch(set[1], -1) {
					c.Allowed = append(c.Allowed, v[1])
				}
			}
			// A fixed value (keyDate="yes") is an enumeration of one.
			if fixed := fixedValue.FindStringSubmatch(sub[4]); fixed != nil {
				c.Allowed = append(c.Allowed, fixed[1])
			}
		}
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		return []Complaint{{Message: strings.TrimSpace(out)}}, nil
	}
	return cs, nil
}

// errInvalid marks a run of xmllint that found the document invalid.
var errInvalid = errors.New("invalid")

// run runs xmllint on doc and returns what it printed; the error wraps
// errInvalid when the document does not validate.
func (m *MODSSchema) run(ctx context.Context, doc []byte) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, m.xmllint, "--noout", "--nonet", "--schema", m.xsd, "-")
	cmd.Stdin = bytes.NewReader(doc)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	// xmllint exits 3 when the document does not validate (1 when it is
	// not well-formed, which ParseMODS has ruled out).
	if err != nil && errors.As(err, &exit) && ctx.Err() == nil && (exit.ExitCode() == 3 || exit.ExitCode() == 1) {
		return out.String(), errInvalid
	}
	if err != nil {
		return out.String(), fmt.Errorf("%w: %v", ErrSchemaCheck, err)
	}
	return out.String(), nil
}

// shortReason is xmllint's complaint without the lists it appends (the
// values of an enumeration, the elements expected).
func shortReason(s string) string {
	for _, cut := range []string{" Expected is", " of the set {"} {
		if i := strings.Index(s, cut); i >= 0 {
			s = s[:i]
		}
	}
	return strings.TrimSpace(s)
}
