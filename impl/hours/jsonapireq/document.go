// Package jsonapireq makes JSON:API request documents and query strings
// what the Hours contract validates, the way JSON:API 1.1 lets clients send
// them: members the specification allows but the service has no use for
// (top-level meta, jsonapi and links; data.meta and data.links) are
// dropped; read-only attributes and relationships a client sends back
// exactly as it read them are dropped, and a change to one is refused with
// 403 and a pointer; unsupported query parameters are refused with 400
// naming them. It knows nothing of HTTP routing or storage: the caller
// gives the resource as stored and the parameters it supports.
package jsonapireq

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// Error is a refused request: the HTTP status, a sentence naming what is
// wrong, and the JSON Pointer (into the request document) or the query
// parameter at fault.
type Error struct {
	Status    int
	Message   string
	Pointer   string
	Parameter string
}

func (e *Error) Error() string { return e.Message }

// Resource is the resource a request document is checked against: on
// update the stored resource as the service renders it, on create what the
// URL implies (for example a location's library relationship).
type Resource struct {
	// Type is the resource's JSON:API type ("libraries").
	Type string
	// ReadOnly are attribute values clients may send back unchanged
	// (location_id); a different value is refused with 403. An attribute
	// not listed here is left to the contract's validator.
	ReadOnly map[string]any
	// Computed are read-only attributes whose value depends on the request
	// that read them (hours: the week or range asked for), so no stored
	// value can be compared: a value of the declared JSON kind is dropped,
	// anything else is refused with 403.
	Computed map[string]Kind
	// Relationships are the resource's relationships as JSON:API linkage
	// (the "data" member: an identifier object, null, or an array of
	// them). They are not writable through a resource's attributes; a
	// relationship sent with the same linkage is dropped, with another
	// linkage refused with 403.
	Relationships map[string]any
	// WritableRelationships are relationships the request document sets
	// (a schedule's term): they are left in place for the contract's
	// validator and the handler.
	WritableRelationships []string
}

// Kind is the JSON kind of a computed attribute.
type Kind int

const (
	Array Kind = iota
	Object
)

// MaxDocumentBytes bounds a request document the normaliser reads (the
// HTTP layer has its own, usually smaller, limit).
const MaxDocumentBytes = 1 << 20

// Normalize returns body without the members JSON:API allows but the
// contract does not declare, after checking read-only attributes and
// relationships against r. Members it does not know (an attribute the
// resource does not have, a misspelt top-level member) are left for the
// contract's validator to refuse with its own pointer. A body that is not
// a JSON object is returned unchanged for the same reason.
func Normalize(body []byte, r Resource) ([]byte, error) {
	if len(body) > MaxDocumentBytes {
		return nil, &Error{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("the request document is larger than %d bytes", MaxDocumentBytes)}
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(body, &doc); err != nil || doc == nil {
		return body, nil
	}
	changed, err := dropMembers(doc, []string{"meta", "jsonapi", "links"}, checkTopLevel)
	if err != nil {
		return nil, err
	}
	dataChanged, err := rewriteObject(doc, "data", r.normalizeData)
	if err != nil {
		return nil, err
	}
	return reencode(body, doc, changed || dataChanged)
}

// rewriteObject hands the object parent[member] to edit and, when edit
// changed it, encodes it back into parent. An absent member, or one that
// is not an object, is left as it is (the contract's validation answers
// for it).
func rewriteObject(parent map[string]json.RawMessage, member string, edit func(map[string]json.RawMessage) (bool, error)) (bool, error) {
	raw, ok := parent[member]
	if !ok {
		return false, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return false, nil
	}
	changed, err := edit(obj)
	if err != nil || !changed {
		return false, err
	}
	enc, err := json.Marshal(obj)
	if err != nil {
		return false, fmt.Errorf("jsonapireq: encoding %s: %w", member, err)
	}
	parent[member] = enc
	return true, nil
}

// dropMembers removes members from obj, each checked by check first; it
// reports whether it removed any.
func dropMembers(obj map[string]json.RawMessage, members []string, check func(member string, raw json.RawMessage) error) (bool, error) {
	changed := false
	for _, member := range members {
		raw, ok := obj[member]
		if !ok {
			continue
		}
		if err := check(member, raw); err != nil {
			return false, err
		}
		delete(obj, member)
		changed = true
	}
	return changed, nil
}

func reencode(body []byte, doc map[string]json.RawMessage, changed bool) ([]byte, error) {
	if !changed {
		return body, nil
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("jsonapireq: encoding document: %w", err)
	}
	return out, nil
}

// checkTopLevel applies JSON:API's shape rules to the members dropped: meta
// and links are objects, jsonapi an object whose version (when given) is
// one this server speaks.
func checkTopLevel(member string, raw json.RawMessage) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return &Error{Status: http.StatusBadRequest, Message: fmt.Sprintf("member %q of the request document must be an object", member), Pointer: "/" + member}
	}
	if member != "jsonapi" {
		return nil
	}
	if v, ok := obj["version"]; ok {
		var version string
		if err := json.Unmarshal(v, &version); err != nil || (version != "1.0" && version != "1.1") {
			return &Error{Status: http.StatusBadRequest, Message: fmt.Sprintf("jsonapi.version %s is not supported: this server speaks JSON:API 1.0 and 1.1", strings.TrimSpace(string(v))), Pointer: "/jsonapi/version"}
		}
	}
	if _, ok := obj["ext"]; ok {
		return &Error{Status: http.StatusBadRequest, Message: "jsonapi.ext: this server supports no JSON:API extensions", Pointer: "/jsonapi/ext"}
	}
	return nil
}

// normalizeData drops data.meta, data.links, unchanged read-only
// attributes and unchanged relationships.
func (r Resource) normalizeData(data map[string]json.RawMessage) (bool, error) {
	changed, err := dropMembers(data, []string{"meta", "links"}, func(member string, raw json.RawMessage) error {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return &Error{Status: http.StatusBadRequest, Message: fmt.Sprintf("data.%s must be an object", member), Pointer: "/data/" + member}
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	attrsChanged, err := rewriteObject(data, "attributes", r.dropReadOnly)
	if err != nil {
		return false, err
	}
	changed = changed || attrsChanged
	if raw, ok := data["relationships"]; ok {
		kept, err := r.checkRelationships(raw)
		if err != nil {
			return false, err
		}
		if len(kept) == 0 {
			delete(data, "relationships")
		} else {
			enc, err := json.Marshal(kept)
			if err != nil {
				return false, fmt.Errorf("jsonapireq: encoding relationships: %w", err)
			}
			data["relationships"] = enc
		}
		changed = true
	}
	return changed, nil
}

// dropReadOnly drops the read-only and computed attributes sent back as
// read, refusing any other value of them.
func (r Resource) dropReadOnly(attrs map[string]json.RawMessage) (bool, error) {
	changed := false
	for _, name := range sortedKeys(attrs) {
		raw := attrs[name]
		pointer := "/data/attributes/" + escapePointer(name)
		if kind, ok := r.Computed[name]; ok {
			if !hasKind(raw, kind) {
				return false, &Error{Status: http.StatusForbidden, Message: fmt.Sprintf("attribute %q is read-only: it is computed by the server; leave it out or send it back as read", name), Pointer: pointer}
			}
			delete(attrs, name)
			changed = true
			continue
		}
		stored, ok := r.ReadOnly[name]
		if !ok {
			continue
		}
		if !sameJSON(raw, stored) {
			return false, &Error{Status: http.StatusForbidden, Message: fmt.Sprintf("attribute %q is read-only: it cannot be changed (it is %s)", name, describe(stored)), Pointer: pointer}
		}
		delete(attrs, name)
		changed = true
	}
	return changed, nil
}

// checkRelationships checks the read-only relationships sent against r
// and returns the writable ones, to keep.
func (r Resource) checkRelationships(raw json.RawMessage) (map[string]json.RawMessage, error) {
	var rels map[string]json.RawMessage
	if err := json.Unmarshal(raw, &rels); err != nil || rels == nil {
		return nil, &Error{Status: http.StatusBadRequest, Message: "data.relationships must be an object", Pointer: "/data/relationships"}
	}
	kept := map[string]json.RawMessage{}
	for _, name := range sortedKeys(rels) {
		if slices.Contains(r.WritableRelationships, name) {
			kept[name] = rels[name]
			continue
		}
		pointer := "/data/relationships/" + escapePointer(name)
		stored, known := r.Relationships[name]
		if !known {
			return nil, &Error{Status: http.StatusUnprocessableEntity, Message: fmt.Sprintf("%s have no relationship %q", r.Type, name), Pointer: pointer}
		}
		var rel map[string]json.RawMessage
		if err := json.Unmarshal(rels[name], &rel); err != nil || rel == nil {
			return nil, &Error{Status: http.StatusBadRequest, Message: fmt.Sprintf("relationship %q must be an object", name), Pointer: pointer}
		}
		linkage, ok := rel["data"]
		if !ok {
			continue // only links or meta: nothing to change
		}
		if !sameLinkage(linkage, stored) {
			return nil, &Error{Status: http.StatusForbidden, Message: fmt.Sprintf("relationship %q cannot be changed here (it is %s)", name, describeLinkage(stored)), Pointer: pointer + "/data"}
		}
	}
	return kept, nil
}

// sameLinkage compares resource linkage ignoring each identifier's meta
// and lid and the order of a to-many list.
func sameLinkage(raw json.RawMessage, stored any) bool {
	var got any
	if err := json.Unmarshal(raw, &got); err != nil {
		return false
	}
	norm := func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			return map[string]any{"type": x["type"], "id": x["id"]}
		case []any:
			out := make([]string, 0, len(x))
			for _, e := range x {
				m, ok := e.(map[string]any)
				if !ok {
					return x
				}
				out = append(out, fmt.Sprintf("%v\x00%v", m["type"], m["id"]))
			}
			sort.Strings(out)
			return out
		}
		return v
	}
	return reflect.DeepEqual(norm(got), norm(roundTrip(stored)))
}

// roundTrip is v as encoding/json decodes it into any, so stored Go values
// compare with decoded request values.
func roundTrip(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return v
	}
	return out
}

func sameJSON(raw json.RawMessage, stored any) bool {
	var got any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&got); err != nil {
		return false
	}
	b, err := json.Marshal(stored)
	if err != nil {
		return false
	}
	var want any
	dec = json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&want); err != nil {
		return false
	}
	return reflect.DeepEqual(normalizeNumbers(got), normalizeNumbers(want))
}

// normalizeNumbers makes 7 and 7.0 the same number.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
		return x.String()
	case []any:
		for i := range x {
			x[i] = normalizeNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalizeNumbers(x[k])
		}
	}
	return v
}

func hasKind(raw json.RawMessage, k Kind) bool {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return false
	}
	switch k {
	case Array:
		return t[0] == '[' && json.Valid(t)
	case Object:
		return t[0] == '{' && json.Valid(t)
	}
	return false
}

func describe(v any) string {
	b, err := json.Marshal(v)
	if err != nil || len(b) > 80 {
		return "set by the server"
	}
	return string(b)
}

func describeLinkage(v any) string {
	switch x := roundTrip(v).(type) {
	case nil:
		return "empty"
	case map[string]any:
		return fmt.Sprintf("%v %q", x["type"], fmt.Sprint(x["id"]))
	case []any:
		return fmt.Sprintf("%d resources, set by the server", len(x))
	}
	return "set by the server"
}

// escapePointer escapes a member name as a JSON Pointer token (RFC 6901).
func escapePointer(s string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(s) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
