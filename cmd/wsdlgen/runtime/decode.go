package soap

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Call is a decoded request: the chosen overload and one value per input
// part, of the part's Go type.
type Call struct {
	Operation *Operation
	Args      []any
}

// Decoder decodes rpc/encoded requests against a dispatch table.
type Decoder struct {
	// byName groups the overloads by operation name, in table order.
	byName map[string][]*Operation
	// namespace is the request namespace; requests in no namespace are
	// accepted too (some hand-written clients leave it out).
	namespace string
	limits    Limits
	goTypes   map[*Type]reflect.Type
}

// NewDecoder prepares a decoder for ops, whose request wrappers are in
// namespace.
func NewDecoder(ops []Operation, namespace string, limits Limits) (*Decoder, error) {
	if limits.MaxDepth <= 0 {
		limits.MaxDepth = defaultLimits.MaxDepth
	}
	if limits.MaxElements <= 0 {
		limits.MaxElements = defaultLimits.MaxElements
	}
	if limits.MaxTextBytes <= 0 {
		limits.MaxTextBytes = DefaultMaxRequestBytes
	}
	d := &Decoder{byName: map[string][]*Operation{}, namespace: namespace, limits: limits, goTypes: map[*Type]reflect.Type{}}
	for i := range ops {
		op := &ops[i]
		if op.Invoke == nil {
			return nil, fmt.Errorf("operation %s (%s) has no Invoke", op.Name, op.Input.Name)
		}
		for _, msg := range []Message{op.Input, op.Output} {
			for _, p := range msg.Parts {
				if err := d.register(p.Type); err != nil {
					return nil, fmt.Errorf("operation %s, message %s, part %s: %w", op.Name, msg.Name, p.Name, err)
				}
			}
		}
		d.byName[op.Name] = append(d.byName[op.Name], op)
	}
	return d, nil
}

func (d *Decoder) register(t *Type) error {
	if _, ok := d.goTypes[t]; ok {
		return nil
	}
	gt, err := t.GoType()
	if err != nil {
		return err
	}
	d.goTypes[t] = gt
	if t.Elem != nil {
		return d.register(t.Elem)
	}
	return nil
}

// Decode reads one SOAP 1.1 envelope and returns the call it asks for.
// Every error is a *Fault.
func (d *Decoder) Decode(r io.Reader) (*Call, error) {
	root, err := parseTree(r, d.limits)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, ClientFault("request larger than %d bytes", tooBig.Limit)
		}
		return nil, ClientFault("%v", err)
	}
	if root.name.Local != "Envelope" {
		return nil, ClientFault("malformed envelope: root element is %s, not a SOAP Envelope", root.name.Local)
	}
	if root.name.Space != EnvelopeNamespace {
		return nil, &Fault{Code: FaultVersionMismatch, String: fmt.Sprintf("envelope namespace %q is not SOAP 1.1 (%s)", root.name.Space, EnvelopeNamespace)}
	}
	var body *node
	for _, c := range root.children {
		switch {
		case c.name.Space == EnvelopeNamespace && c.name.Local == "Header":
			for _, h := range c.children {
				if mu, _ := h.attr(EnvelopeNamespace, "mustUnderstand"); strings.TrimSpace(mu) == "1" || strings.TrimSpace(mu) == "true" {
					return nil, &Fault{Code: FaultMustUnderstand, String: fmt.Sprintf("header {%s}%s is not understood", h.name.Space, h.name.Local)}
				}
			}
		case c.name.Space == EnvelopeNamespace && c.name.Local == "Body":
			if body != nil {
				return nil, ClientFault("malformed envelope: more than one Body")
			}
			body = c
		}
	}
	if body == nil {
		return nil, ClientFault("malformed envelope: no Body")
	}
	ids := map[string]*node{}
	indexIDs(body, ids)
	// The call is the first Body child that is not a multiRef target.
	var wrapper *node
	for _, c := range body.children {
		if root, _ := c.attr(EncodingNamespace, "root"); strings.TrimSpace(root) == "0" {
			continue
		}
		if _, isRef := c.attr("", "id"); isRef && c.name.Local == "multiRef" {
			continue
		}
		wrapper = c
		break
	}
	if wrapper == nil {
		return nil, ClientFault("malformed envelope: empty Body")
	}
	if wrapper.name.Space != d.namespace && wrapper.name.Space != "" {
		return nil, ClientFault("unknown operation {%s}%s: operations are in namespace %s", wrapper.name.Space, wrapper.name.Local, d.namespace)
	}
	overloads := d.byName[wrapper.name.Local]
	if len(overloads) == 0 {
		return nil, ClientFault("unknown operation %q", wrapper.name.Local)
	}
	dec := &valueDecoder{ids: ids, goTypes: d.goTypes, budget: d.limits.MaxElements, textBudget: d.limits.MaxTextBytes, maxText: d.limits.MaxTextBytes, memo: map[memoKey]memoEntry{}}
	op, byName := selectOverload(overloads, wrapper.children, dec)
	if op == nil {
		names := make([]string, len(wrapper.children))
		for i, c := range wrapper.children {
			names[i] = c.name.Local
		}
		return nil, ClientFault("no overload of %s takes the parts (%s)", wrapper.name.Local, strings.Join(names, ", "))
	}
	args := make([]any, len(op.Input.Parts))
	for i, p := range op.Input.Parts {
		var el *node
		if byName {
			for _, c := range wrapper.children {
				if c.name.Local == p.Name {
					el = c
					break
				}
			}
		} else {
			el = wrapper.children[i]
		}
		v, err := dec.decode(el, p.Type, 0)
		if err != nil {
			return nil, ClientFault("%s (%s), part %s: %v", op.Name, op.Input.Name, p.Name, err)
		}
		args[i] = v.Interface()
	}
	return &Call{Operation: op, Args: args}, nil
}

func indexIDs(n *node, ids map[string]*node) {
	if id, ok := n.attr("", "id"); ok {
		if _, dup := ids[id]; !dup {
			ids[id] = n
		}
	}
	for _, c := range n.children {
		indexIDs(c, ids)
	}
}

// selectOverload picks the overload a request means. First the one whose
// part names are exactly the request's element names (any order); failing
// that, the ones with as many parts as the request has elements, taking
// the first whose parts all decode (positional parts, as PHP's SoapClient
// sends param3, param4… beyond the first overload's part names). byName
// tells how to match elements to parts.
func selectOverload(overloads []*Operation, elems []*node, dec *valueDecoder) (op *Operation, byName bool) {
	names := make([]string, len(elems))
	for i, e := range elems {
		names[i] = e.name.Local
	}
	slices.Sort(names)
	for _, o := range overloads {
		parts := make([]string, len(o.Input.Parts))
		for i, p := range o.Input.Parts {
			parts[i] = p.Name
		}
		slices.Sort(parts)
		if slices.Equal(parts, names) {
			return o, true
		}
	}
	var sameCount []*Operation
	for _, o := range overloads {
		if len(o.Input.Parts) == len(elems) {
			sameCount = append(sameCount, o)
		}
	}
	if len(sameCount) == 1 {
		return sameCount[0], false
	}
	for _, o := range sameCount {
		fits := true
		for i, p := range o.Input.Parts {
			if _, err := dec.decode(elems[i], p.Type, 0); err != nil {
				fits = false
				break
			}
		}
		if fits {
			return o, false
		}
	}
	return nil, false
}

// valueDecoder turns elements into Go values of declared types.
type valueDecoder struct {
	ids     map[string]*node
	goTypes map[*Type]reflect.Type
	// budget is how many more elements decoding may visit. hrefs let a
	// small document describe a huge value (an array of 1000 references
	// to an array of 1000 references to …), so the decoded size is
	// bounded like the parsed size.
	budget int
	// textBudget is how many more bytes of text the decoded values may
	// hold (of maxText): like budget, every reference to a text spends its
	// length, so 10,000 hrefs to one 13,000-character sequence are refused
	// here, before the operation copies 130 MB out of them.
	textBudget, maxText int
	// memo holds the values already decoded, so that many references to
	// one element decode it once: without it, 150,000 references to a
	// 4 MB text would trim (or attribute-scan) that element 150,000
	// times. A hit still spends the budget the value cost, so the decoded
	// size is bounded exactly as before. The depth is part of the key so
	// that a value shared at several depths still respects maxDecodeDepth.
	memo map[memoKey]memoEntry
}

// memoKey is an element decoded as a type (nil: as xsd:anyType by what
// the element says about itself) at a nesting depth.
type memoKey struct {
	n     *node
	t     *Type
	depth int
}

type memoEntry struct {
	typed    reflect.Value // decode's result
	any      any           // anyValue's result
	cost     int           // budget spent computing it
	textCost int           // textBudget spent computing it
}

func (vd *valueDecoder) spend() error { return vd.spendN(1) }

// spendText spends n bytes of the text budget.
func (vd *valueDecoder) spendText(n int) error {
	vd.textBudget -= n
	if vd.textBudget < 0 {
		return fmt.Errorf("%w: the value holds (through href references) more than %d bytes of text", errLimit, vd.maxText)
	}
	return nil
}

// spendMemo spends again what a memoised value cost.
func (vd *valueDecoder) spendMemo(e memoEntry) error {
	if err := vd.spendN(e.cost); err != nil {
		return err
	}
	return vd.spendText(e.textCost)
}

func (vd *valueDecoder) spendN(n int) error {
	vd.budget -= n
	if vd.budget < 0 {
		return fmt.Errorf("%w: the value expands (through href references) to too many elements", errLimit)
	}
	return nil
}

// maxHrefHops bounds href chains (and breaks cycles).
const maxHrefHops = 32

// resolve follows href="#id" references to the element holding the value.
func (vd *valueDecoder) resolve(n *node) (*node, error) {
	for hops := 0; ; hops++ {
		href, ok := n.attr("", "href")
		if !ok {
			return n, nil
		}
		if hops >= maxHrefHops {
			return nil, fmt.Errorf("href chain longer than %d (cycle?)", maxHrefHops)
		}
		id, local := strings.CutPrefix(strings.TrimSpace(href), "#")
		if !local {
			return nil, fmt.Errorf("href %q is not a reference inside the envelope", href)
		}
		target, ok := vd.ids[id]
		if !ok {
			return nil, fmt.Errorf("href %q refers to no element", href)
		}
		n = target
	}
}

func isNil(n *node) bool {
	v, ok := n.attr(XSINamespace, "nil")
	if !ok {
		// Old 1999 schema instance namespace (SOAP::Lite can be set to it).
		v, ok = n.attr("http://www.w3.org/1999/XMLSchema-instance", "null")
	}
	v = strings.TrimSpace(v)
	return ok && (v == "true" || v == "1")
}

// xsiType is the local name of n's xsi:type and whether it names a
// soapenc array (soapenc:Array, or any type named ArrayOf…, or an element
// carrying soapenc:arrayType).
func xsiType(n *node) (local string, array bool) {
	if _, ok := n.attr(EncodingNamespace, "arrayType"); ok {
		array = true
	}
	t, ok := n.qnameAttr(XSINamespace, "type")
	if !ok {
		t, ok = n.qnameAttr("http://www.w3.org/1999/XMLSchema-instance", "type")
	}
	if !ok {
		return "", array
	}
	if t.Local == "Array" || strings.HasPrefix(t.Local, "ArrayOf") {
		array = true
	}
	return t.Local, array
}

// maxDecodeDepth bounds nesting of decoded values (hrefs can build deep
// values from a flat document).
const maxDecodeDepth = 64

func (vd *valueDecoder) decode(n *node, t *Type, depth int) (reflect.Value, error) {
	if depth > maxDecodeDepth {
		return reflect.Value{}, fmt.Errorf("value nested deeper than %d", maxDecodeDepth)
	}
	n, err := vd.resolve(n)
	if err != nil {
		return reflect.Value{}, err
	}
	key := memoKey{n: n, t: t, depth: depth}
	if e, ok := vd.memo[key]; ok {
		if err := vd.spendMemo(e); err != nil {
			return reflect.Value{}, err
		}
		return e.typed, nil
	}
	before, beforeText := vd.budget, vd.textBudget
	v, err := vd.decodeResolved(n, t, depth)
	if err != nil {
		return reflect.Value{}, err
	}
	vd.memo[key] = memoEntry{typed: v, cost: before - vd.budget, textCost: beforeText - vd.textBudget}
	return v, nil
}

// decodeResolved is decode after href resolution and the memo.
func (vd *valueDecoder) decodeResolved(n *node, t *Type, depth int) (reflect.Value, error) {
	gt := vd.goTypes[t]
	if err := vd.spend(); err != nil {
		return reflect.Value{}, err
	}
	if isNil(n) {
		return reflect.Zero(gt), nil
	}
	typeName, isArray := xsiType(n)
	if t.Elem != nil {
		if !isArray && !n.hasChildren() && strings.TrimSpace(n.text) != "" {
			return reflect.Value{}, fmt.Errorf("expected an array (%s), got the text %q", t, clip(n.text))
		}
		if !isArray && typeName != "" && typeName != t.Name && !n.hasChildren() && isScalarTypeName(typeName) {
			return reflect.Value{}, fmt.Errorf("expected an array (%s), got xsi:type %s", t, typeName)
		}
		out := reflect.MakeSlice(gt, len(n.children), len(n.children))
		for i, c := range n.children {
			v, err := vd.decode(c, t.Elem, depth+1)
			if err != nil {
				return reflect.Value{}, fmt.Errorf("item %d: %w", i+1, err)
			}
			out.Index(i).Set(v)
		}
		return out, nil
	}
	if t.Name == "anyType" {
		v, err := vd.decodeAny(n, typeName, isArray, depth)
		if err != nil {
			return reflect.Value{}, err
		}
		out := reflect.New(gt).Elem()
		if v != nil {
			out.Set(reflect.ValueOf(v))
		}
		return out, nil
	}
	if isArray || n.hasChildren() {
		return reflect.Value{}, fmt.Errorf("expected %s, got a structured value", t)
	}
	if t.Name == "string" { // numbers and booleans hold no text once parsed
		if err := vd.spendText(len(n.text)); err != nil {
			return reflect.Value{}, err
		}
	}
	v, err := parseScalar(t.Name, n.text)
	if err != nil {
		return reflect.Value{}, err
	}
	return reflect.ValueOf(v), nil
}

// decodeAny decodes an xsd:anyType value by what the element says about
// itself: arrays and other compound values become []any (item element
// names are ignored), scalars take their xsi:type (string when absent or
// unknown).
func (vd *valueDecoder) decodeAny(n *node, typeName string, isArray bool, depth int) (any, error) {
	if isArray || n.hasChildren() {
		items := make([]any, len(n.children))
		for i, c := range n.children {
			v, err := vd.anyItem(c, depth+1)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i+1, err)
			}
			items[i] = v
		}
		return items, nil
	}
	switch typeName {
	case "int", "short", "byte", "long", "integer", "unsignedInt", "unsignedShort", "unsignedByte", "nonNegativeInteger", "positiveInteger":
		return parseScalar("long", n.text)
	case "boolean":
		return parseScalar("boolean", n.text)
	case "double", "float", "decimal":
		return parseScalar("double", n.text)
	}
	if err := vd.spendText(len(n.text)); err != nil {
		return nil, err
	}
	return n.text, nil
}

// anyItem decodes an item of an xsd:anyType array (nil for xsi:nil), through
// the memo like decode.
func (vd *valueDecoder) anyItem(c *node, depth int) (any, error) {
	c, err := vd.resolve(c)
	if err != nil {
		return nil, err
	}
	key := memoKey{n: c, depth: depth}
	if e, ok := vd.memo[key]; ok {
		if err := vd.spendMemo(e); err != nil {
			return nil, err
		}
		return e.any, nil
	}
	before, beforeText := vd.budget, vd.textBudget
	if err := vd.spend(); err != nil {
		return nil, err
	}
	var v any
	if !isNil(c) {
		if depth > maxDecodeDepth {
			return nil, fmt.Errorf("value nested deeper than %d", maxDecodeDepth)
		}
		tn, arr := xsiType(c)
		if v, err = vd.decodeAny(c, tn, arr, depth); err != nil {
			return nil, err
		}
	}
	vd.memo[key] = memoEntry{any: v, cost: before - vd.budget, textCost: beforeText - vd.textBudget}
	return v, nil
}

func isScalarTypeName(name string) bool {
	switch name {
	case "string", "int", "long", "short", "byte", "integer", "boolean", "double", "float", "decimal", "base64Binary", "dateTime":
		return true
	}
	return false
}

// parseScalar converts element text to the Go value of an XML Schema
// built-in; whitespace around numbers and booleans is ignored.
func parseScalar(xsdName, text string) (any, error) {
	switch xsdName {
	case "string":
		return text, nil
	case "int":
		s := strings.TrimSpace(text)
		i, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%q is not an xsd:int", clip(text))
		}
		return int32(i), nil
	case "long":
		s := strings.TrimSpace(text)
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an xsd:long", clip(text))
		}
		return i, nil
	case "boolean":
		switch strings.TrimSpace(text) {
		case "true", "1":
			return true, nil
		case "false", "0":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not an xsd:boolean", clip(text))
	case "double":
		s := strings.TrimSpace(text)
		switch s {
		case "INF":
			return math.Inf(1), nil
		case "-INF":
			return math.Inf(-1), nil
		case "NaN":
			return math.NaN(), nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || strings.ContainsAny(s, "xXpP_") || strings.EqualFold(s, "inf") || strings.EqualFold(s, "infinity") || strings.EqualFold(s, "nan") {
			return nil, fmt.Errorf("%q is not an xsd:double", clip(text))
		}
		return f, nil
	}
	return nil, fmt.Errorf("xsd:%s is not supported", xsdName)
}

// clip shortens text quoted in error messages.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
