package asi

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// minimal returns a small valid algorithm with the given drug rule condition and actions.
func minimal(cond, actions string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<ALGORITHM>
  <ALGNAME>TEST</ALGNAME><ALGVERSION>1</ALGVERSION><ALGDATE>2026-01-01</ALGDATE>
  <DEFINITIONS>
    <GENE_DEFINITION><NAME>RT</NAME><DRUGCLASSLIST>NRTI</DRUGCLASSLIST></GENE_DEFINITION>
    <LEVEL_DEFINITION><ORDER>1</ORDER><ORIGINAL>Susceptible</ORIGINAL><SIR>S</SIR></LEVEL_DEFINITION>
    <LEVEL_DEFINITION><ORDER>2</ORDER><ORIGINAL>Resistant</ORIGINAL><SIR>R</SIR></LEVEL_DEFINITION>
    <DRUGCLASS><NAME>NRTI</NAME><DRUGLIST>3TC,AZT</DRUGLIST></DRUGCLASS>
    <GLOBALRANGE>(-INF TO 29 => 1, 30 TO INF => 2)</GLOBALRANGE>
    <COMMENT_DEFINITIONS>
      <COMMENT_STRING id="C184"><TEXT>M184V/I cause resistance; seen: $listMutsIn{184(NOT M)}.</TEXT><SORT_TAG>1</SORT_TAG></COMMENT_STRING>
      <COMMENT_STRING id="R3TC"><TEXT>3TC is compromised.</TEXT><SORT_TAG>1</SORT_TAG></COMMENT_STRING>
    </COMMENT_DEFINITIONS>
  </DEFINITIONS>
  <DRUG><NAME>3TC</NAME><FULLNAME>lamivudine</FULLNAME>
    <RULE><CONDITION><![CDATA[` + cond + `]]></CONDITION><ACTIONS>` + actions + `</ACTIONS></RULE>
  </DRUG>
  <DRUG><NAME>AZT</NAME>
    <RULE><CONDITION>215FY</CONDITION><ACTIONS><LEVEL>2</LEVEL></ACTIONS></RULE>
  </DRUG>
  <MUTATION_COMMENTS><GENE><NAME>RT</NAME>
    <RULE><CONDITION>184VI</CONDITION><ACTIONS><COMMENT ref="C184"/></ACTIONS></RULE>
  </GENE></MUTATION_COMMENTS>
  <RESULT_COMMENTS><RESULT_COMMENT_RULE>
    <DRUG_LEVEL_CONDITIONS><DRUG_LEVEL_CONDITION><DRUG_NAME>3TC</DRUG_NAME><GTE>2</GTE></DRUG_LEVEL_CONDITION></DRUG_LEVEL_CONDITIONS>
    <LEVEL_ACTION><COMMENT ref="R3TC"/></LEVEL_ACTION>
  </RESULT_COMMENT_RULE></RESULT_COMMENTS>
</ALGORITHM>`
}

func TestMinimalAlgorithm(t *testing.T) {
	a, err := Parse([]byte(minimal("SCORE FROM (MAX(184V => 60, 184I => 30), 65R => -10)", "<SCORERANGE><USE_GLOBALRANGE/></SCORERANGE>")))
	if err != nil {
		t.Fatal(err)
	}
	res := a.Evaluate(Input{Genes: map[string]*Mutations{"RT": mutations(t, "M184IV,K65R")}})
	if len(res.Drugs) != 2 {
		t.Fatalf("%d drugs", len(res.Drugs))
	}
	d := res.Drugs[0]
	if d.Drug.Name != "3TC" || d.Score != 50 || d.Level.Order != 2 || d.Level.SIR != "R" || !d.HasScore {
		t.Errorf("3TC: %+v", d)
	}
	if az := res.Drugs[1]; az.Level.Order != 1 || az.HasScore || az.Drug.FullName != "" {
		t.Errorf("AZT: %+v", az)
	}
	var ids, texts []string
	for _, c := range res.Comments {
		ids = append(ids, c.Kind+":"+c.Comment.ID)
		texts = append(texts, c.Text)
	}
	if strings.Join(ids, ",") != "mutation:C184,result:R3TC" {
		t.Errorf("comments %v", ids)
	}
	if texts[0] != "M184V/I cause resistance; seen: 184IV." {
		t.Errorf("placeholder: %q", texts[0])
	}
	// the gene not sequenced: nothing evaluated
	if res := a.Evaluate(Input{Genes: map[string]*Mutations{"PR": mutations(t, "L90M")}}); len(res.Drugs) != 0 || len(res.Comments) != 0 {
		t.Errorf("unsequenced RT evaluated: %+v", res)
	}
	// boolean rule with a LEVEL
	a, err = Parse([]byte(minimal("184VI AND EXCLUDE 65R", "<LEVEL>2</LEVEL>")))
	if err != nil {
		t.Fatal(err)
	}
	for muts, want := range map[string]int{"M184V": 2, "M184V,K65R": 1, "": 1} {
		if got := a.Evaluate(Input{Genes: map[string]*Mutations{"RT": mutations(t, muts)}}).Drugs[0].Level.Order; got != want {
			t.Errorf("[%s]: level %d, want %d", muts, got, want)
		}
	}
}

func TestHostileAlgorithmsRejected(t *testing.T) {
	good := minimal("184V", "<LEVEL>2</LEVEL>")
	body := good[strings.Index(good, "<ALGORITHM>"):]
	tests := []struct {
		name, doc, where, what string
	}{
		{"internal DTD entity", `<?xml version="1.0"?><!DOCTYPE ALGORITHM [<!ENTITY x "boom">]>` + strings.Replace(body, "TEST", "&x;", 1), "document line 1", "internal subset"},
		{"external entity", `<?xml version="1.0"?><!DOCTYPE ALGORITHM [<!ENTITY x SYSTEM "file:///etc/passwd">]>` + strings.Replace(body, "TEST", "&x;", 1), "document", "internal subset"},
		{"billion laughs", `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>` + strings.Replace(body, "TEST", "&lol2;", 1), "document", "internal subset"},
		{"undeclared entity", strings.Replace(good, "TEST", "&x;", 1), "document", "malformed XML"},
		{"huge", good + strings.Repeat("<!-- padding -->", MaxAlgorithmBytes/16+1), "document", "larger than"},
		{"deeply nested", strings.Replace(good, "<ALGNAME>", strings.Repeat("<X>", 100)+strings.Repeat("</X>", 100)+"<ALGNAME>", 1), "document line", "nest deeper"},
		{"malformed XML", strings.Replace(good, "</ALGORITHM>", "", 1), "document", "malformed XML"},
		{"bad condition", minimal("184V AND", "<LEVEL>2</LEVEL>"), `DRUG "3TC" RULE 1 CONDITION`, "expected a residue"},
		{"bad amino acid", minimal("SCORE FROM (184V => 10, 65B => 5)", "<SCORERANGE><USE_GLOBALRANGE/></SCORERANGE>"), `DRUG "3TC" RULE 1 CONDITION`, `'B' is not an amino acid`},
		{"deep condition", minimal(strings.Repeat("(", 40)+"184V"+strings.Repeat(")", 40), "<LEVEL>2</LEVEL>"), `DRUG "3TC" RULE 1 CONDITION`, "nesting deeper"},
		{"undefined level", minimal("184V", "<LEVEL>7</LEVEL>"), `DRUG "3TC" RULE 1 ACTIONS LEVEL`, "not a defined level"},
		{"score without range", minimal("SCORE FROM (184V => 10)", "<LEVEL>2</LEVEL>"), `DRUG "3TC" RULE 1 ACTIONS LEVEL`, "needs a SCORERANGE"},
		{"range without score", minimal("184V", "<SCORERANGE>(-INF TO 1 => 1)</SCORERANGE>"), `DRUG "3TC" RULE 1 ACTIONS SCORERANGE`, "needs a SCORE FROM"},
		{"bad range", minimal("SCORE FROM (184V => 10)", "<SCORERANGE>(-INF TO 1 => 1, 0 TO 5 => 2)</SCORERANGE>"), `DRUG "3TC" RULE 1 ACTIONS SCORERANGE`, "overlaps"},
		{"unknown comment", minimal("184V", `<LEVEL>2</LEVEL><COMMENT ref="nope"/>`), `DRUG "3TC" RULE 1 ACTIONS COMMENT`, `"nope" is not defined`},
		{"drug in no class", strings.Replace(good, "<DRUGLIST>3TC,AZT</DRUGLIST>", "<DRUGLIST>AZT</DRUGLIST>", 1), `DRUG "3TC"`, "in no DRUGCLASS"},
		{"no drugs", good[:strings.Index(good, "<DRUG>")] + "</ALGORITHM>", "ALGORITHM", "no DRUG"},
		{"wrong root", `<HTML><BODY/></HTML>`, "document", "malformed XML"},
		{"empty", "  ", "document", "empty"},
		{"not XML", "SCORE FROM (41L => 5)", "document", "malformed XML"},
		{"result comment unknown drug", strings.Replace(good, "<DRUG_NAME>3TC</DRUG_NAME>", "<DRUG_NAME>XYZ</DRUG_NAME>", 1), "RESULT_COMMENT_RULE 1", `"XYZ" is not a drug`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if !strings.HasPrefix(e.Where, tc.where) || !strings.Contains(e.What, tc.what) {
				t.Errorf("got where %q what %q; want where %q… what …%q…", e.Where, e.What, tc.where, tc.what)
			}
		})
	}
	// a DOCTYPE naming an external DTD (as the published algorithms do) is accepted and never
	// fetched: a loopback listener named as the DTD's location must see no connection
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dtd := "http://" + ln.Addr().String() + "/ASI2.dtd"
	for _, doc := range []string{
		`<?xml version="1.0"?><!DOCTYPE ALGORITHM SYSTEM "` + dtd + `">` + body,
		`<?xml version="1.0"?><!DOCTYPE ALGORITHM PUBLIC "-//ASI//EN" "` + dtd + `">` + body,
	} {
		if _, err := Parse([]byte(doc)); err != nil {
			t.Errorf("external DTD reference: %v", err)
		}
	}
	if _, err := Parse([]byte(`<?xml version="1.0"?><!DOCTYPE ALGORITHM [<!ENTITY x SYSTEM "` + dtd + `">]>` + strings.Replace(body, "TEST", "&x;", 1))); err == nil {
		t.Error("external entity accepted")
	}
	// Parse is synchronous: a fetch would have left a connection in the listener's backlog
	if err := ln.(*net.TCPListener).SetDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if c, err := ln.Accept(); err == nil {
		c.Close()
		t.Error("the DTD or entity location was fetched")
	}
	_, err = Parse([]byte(minimal("184V AND\n  67N OR", "<LEVEL>2</LEVEL>")))
	if msg := err.Error(); !strings.Contains(msg, `DRUG "3TC" RULE 1 CONDITION at line 2 column 9`) {
		t.Errorf("message %q does not say where", msg)
	}
}

func FuzzParseAlgorithm(f *testing.F) {
	f.Add(minimal("SCORE FROM (MAX(184V => 60, 184I => 30), 65R => -10)", "<SCORERANGE><USE_GLOBALRANGE/></SCORERANGE>"))
	f.Add(minimal("184VI AND EXCLUDE 65R", "<LEVEL>2</LEVEL>"))
	f.Add(`<?xml version="1.0"?><!DOCTYPE ALGORITHM [<!ENTITY x "y">]><ALGORITHM/>`)
	g := mutations(f, "M184V,K65R,T215Y")
	f.Fuzz(func(t *testing.T, doc string) {
		a, err := Parse([]byte(doc))
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		res := a.Evaluate(Input{Genes: map[string]*Mutations{"RT": g, "PR": g, "IN": g}})
		for _, d := range res.Drugs {
			if a.Level(d.Level.Order).Text == "" {
				t.Fatalf("drug %s got undefined level %d", d.Drug.Name, d.Level.Order)
			}
		}
	})
}

// TestDefaultLevel: a drug none of whose rules gives a level gets DEFAULT_LEVEL, which need
// not be the lowest level; without DEFAULT_LEVEL it gets the lowest defined level. A rule that
// does give a level wins even when that level is below the default.
func TestDefaultLevel(t *testing.T) {
	withDefault := strings.Replace(minimal("184V", "<LEVEL>1</LEVEL>"), "<COMMENT_DEFINITIONS>", "<DEFAULT_LEVEL>2</DEFAULT_LEVEL><COMMENT_DEFINITIONS>", 1)
	a, err := Parse([]byte(withDefault))
	if err != nil {
		t.Fatal(err)
	}
	if a.DefaultLevel != 2 {
		t.Fatalf("DefaultLevel %d", a.DefaultLevel)
	}
	levels := func(a *Algorithm, muts string) string {
		var s []string
		for _, d := range a.Evaluate(Input{Genes: map[string]*Mutations{"RT": mutations(t, muts)}}).Drugs {
			s = append(s, d.Drug.Name+"="+strconv.Itoa(d.Level.Order))
		}
		return strings.Join(s, ",")
	}
	for muts, want := range map[string]string{"": "3TC=2,AZT=2", "M184V": "3TC=1,AZT=2", "T215Y": "3TC=2,AZT=2"} {
		if got := levels(a, muts); got != want {
			t.Errorf("DEFAULT_LEVEL 2, [%s]: %s, want %s", muts, got, want)
		}
	}
	a, err = Parse([]byte(minimal("184V", "<LEVEL>2</LEVEL>")))
	if err != nil {
		t.Fatal(err)
	}
	if got := levels(a, ""); got != "3TC=1,AZT=1" {
		t.Errorf("no DEFAULT_LEVEL: %s, want the lowest level", got)
	}
	bad := strings.Replace(withDefault, "<DEFAULT_LEVEL>2<", "<DEFAULT_LEVEL>4<", 1)
	if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), "DEFAULT_LEVEL") {
		t.Errorf("undefined DEFAULT_LEVEL: %v", err)
	}
}
