package testkit

import (
	"bytes"
	"fmt"
	"os"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// JSONSchema is a compiled JSON Schema (the JSON:API and IIIF Presentation
// schemas of ../shared) that tests check documents against. Compiling is
// the slow part: keep one in a Once for the whole test binary.
type JSONSchema struct {
	schema *jsonschema.Schema
}

// CompileJSONSchema compiles the JSON Schema file at path.
func CompileJSONSchema(path string) (*JSONSchema, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("testkit: JSON Schema: %w", err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("testkit: JSON Schema %s: %w", path, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(path, doc); err != nil {
		return nil, fmt.Errorf("testkit: JSON Schema %s: %w", path, err)
	}
	s, err := c.Compile(path)
	if err != nil {
		return nil, fmt.Errorf("testkit: compiling the JSON Schema %s: %w", path, err)
	}
	return &JSONSchema{schema: s}, nil
}

// Validate checks the JSON document doc against the schema: nil when it is
// valid, else an error saying where it breaks the schema (or that doc is
// not JSON).
func (s *JSONSchema) Validate(doc []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return s.schema.Validate(inst)
}
