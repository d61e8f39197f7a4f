package soap

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// sharedHrefEnvelope is an overload-3 call whose inputData holds refs
// references to one element carrying a number padded with pad bytes of
// whitespace: a small request that, decoded naively, trims the padding
// once per reference.
func sharedHrefEnvelope(refs, pad int) string {
	var b strings.Builder
	b.WriteString(`<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><e:Body>` +
		`<a:processSequences xmlns:a="urn:a"><key>k</key><inAlgorithmInterface>0</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><methodName/><reportName/><reportDate/><inputData>`)
	for i := 0; i < refs; i++ {
		b.WriteString(`<i href="#n"/>`)
	}
	b.WriteString(`</inputData></a:processSequences><multiRef id="n" xsi:type="xsd:int">` + strings.Repeat(" ", pad) + `41</multiRef></e:Body></e:Envelope>`)
	return b.String()
}

// TestSharedHrefDecodedOnce: many references to one element decode it once
// (the memo), yet every reference still spends the element budget.
func TestSharedHrefDecodedOnce(t *testing.T) {
	root, err := parseTree(strings.NewReader(sharedHrefEnvelope(1000, 1<<16)), defaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	inputData := root.children[0].children[0].children[7]
	ids := map[string]*node{}
	indexIDs(root, ids)
	anyType := &Type{Namespace: XSDNamespace, Name: "anyType"}
	vd := &valueDecoder{ids: ids, goTypes: map[*Type]reflect.Type{anyType: reflect.TypeFor[any]()}, budget: 10_000, textBudget: 1 << 20, maxText: 1 << 20, memo: map[memoKey]memoEntry{}}
	v, err := vd.decode(inputData, anyType, 0)
	if err != nil {
		t.Fatal(err)
	}
	items, ok := v.Interface().([]any)
	if !ok || len(items) != 1000 || items[0] != int64(41) || items[999] != int64(41) {
		t.Fatalf("decoded %T of %d items", v.Interface(), len(items))
	}
	// inputData itself and the shared element: two decodings, not 1001.
	if len(vd.memo) != 2 {
		t.Errorf("%d memo entries, want 2", len(vd.memo))
	}
	if spent := 10_000 - vd.budget; spent != 1001 {
		t.Errorf("spent %d of the budget, want 1001 (one per reference and one for the array)", spent)
	}

	vd = &valueDecoder{ids: ids, goTypes: vd.goTypes, budget: 500, textBudget: 1 << 20, maxText: 1 << 20, memo: map[memoKey]memoEntry{}}
	if _, err := vd.decode(inputData, anyType, 0); err == nil || !strings.Contains(err.Error(), "expands") {
		t.Errorf("1000 references within a budget of 500: %v", err)
	}
}

// BenchmarkSharedHref decodes 100,000 references to one element padded
// with 1 MiB of whitespace (a 2.5 MB request): without the memo this took
// minutes of CPU.
func BenchmarkSharedHref(b *testing.B) {
	env := sharedHrefEnvelope(100_000, 1<<20)
	anyType := &Type{Namespace: XSDNamespace, Name: "anyType"}
	ops := []Operation{{Name: "processSequences", Input: Message{Parts: []Part{
		{"key", &Type{Namespace: XSDNamespace, Name: "string"}}, {"inAlgorithmInterface", &Type{Namespace: XSDNamespace, Name: "int"}},
		{"algorithm", &Type{Namespace: XSDNamespace, Name: "int"}}, {"userSubmittedAlgorithm", &Type{Namespace: XSDNamespace, Name: "string"}},
		{"methodName", &Type{Namespace: XSDNamespace, Name: "string"}}, {"reportName", &Type{Namespace: XSDNamespace, Name: "string"}},
		{"reportDate", &Type{Namespace: XSDNamespace, Name: "string"}}, {"inputData", anyType},
	}}, Invoke: func(ctx context.Context, args []any) ([]any, error) { return nil, nil }}}
	dec, err := NewDecoder(ops, "urn:a", Limits{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(env)))
	for b.Loop() {
		if _, err := dec.Decode(strings.NewReader(env)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSharedHrefTextBudget: every reference to a text spends its length of the text budget,
// memoised or not, so references cannot multiply text past the limit; numbers hold no text.
func TestSharedHrefTextBudget(t *testing.T) {
	env := strings.Replace(sharedHrefEnvelope(100, 0), `xsi:type="xsd:int">41`, `xsi:type="xsd:string">`+strings.Repeat("ACGT", 250), 1)
	root, err := parseTree(strings.NewReader(env), defaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	inputData := root.children[0].children[0].children[7]
	ids := map[string]*node{}
	indexIDs(root, ids)
	anyType := &Type{Namespace: XSDNamespace, Name: "anyType"}
	goTypes := map[*Type]reflect.Type{anyType: reflect.TypeFor[any]()}
	vd := &valueDecoder{ids: ids, goTypes: goTypes, budget: 10_000, textBudget: 100_000, maxText: 100_000, memo: map[memoKey]memoEntry{}}
	if _, err := vd.decode(inputData, anyType, 0); err != nil {
		t.Fatalf("100 references to 1,000 bytes within 100,000: %v", err)
	}
	if vd.textBudget != 0 {
		t.Errorf("text budget left %d, want 0 (100 × 1,000 spent)", vd.textBudget)
	}
	vd = &valueDecoder{ids: ids, goTypes: goTypes, budget: 10_000, textBudget: 99_999, maxText: 99_999, memo: map[memoKey]memoEntry{}}
	if _, err := vd.decode(inputData, anyType, 0); err == nil || !strings.Contains(err.Error(), "more than 99999 bytes of text") {
		t.Errorf("100 references to 1,000 bytes within 99,999: %v", err)
	}
	// Numbers (the padded int of sharedHrefEnvelope) spend no text.
	root, _ = parseTree(strings.NewReader(sharedHrefEnvelope(100, 1000)), defaultLimits)
	ids = map[string]*node{}
	indexIDs(root, ids)
	vd = &valueDecoder{ids: ids, goTypes: goTypes, budget: 10_000, textBudget: 10, maxText: 10, memo: map[memoKey]memoEntry{}}
	if _, err := vd.decode(root.children[0].children[0].children[7], anyType, 0); err != nil {
		t.Errorf("numbers: %v", err)
	}
}
