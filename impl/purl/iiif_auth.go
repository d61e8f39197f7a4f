package purl

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/sitelib/sitesvc/gen/purlapi"
	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
	"github.com/sitelib/sitesvc/impl/purl/record"
)

// The PURL side of the IIIF Authorization Flow (impl/purl/iiifauth
// serves the flow's own services): which files get the services, their
// descriptions in the manifest and info.json, and the probe's decision,
// which is the file route's own (fileAccessFor).

// AuthServices describes the IIIF Authorization Flow's services of a
// restricted file (iiifauth.Service implements it).
type AuthServices interface {
	// ProbeService is the AuthProbeService2 of the file as one JSON
	// object; with signIn, with the access, token and logout services,
	// whose words name who, its readers in patrons' words.
	ProbeService(object, file, who string, signIn, withContext bool) json.RawMessage
	// LoginService1 is the IIIF Auth 1.0 login service (Mirador 3).
	LoginService1(who string) json.RawMessage
}

// signInWho names, in patrons' words, the login groups whose members may
// read the file once signed in: "" when a sign-in cannot change what the
// file answers (open, embargoed, citation only, location only).
func (s *Service) signInWho(rec *record.Record, name string) string {
	return s.grantNames(rec, name, record.AccessGroup)
}

// grantNames names the file's grants of kind, joined with "or"; "" when
// it has none, or it is open or embargoed (no grant admits anyone then).
func (s *Service) grantNames(rec *record.Record, name string, kind record.AccessKind) string {
	a := rec.Rights.ForFile(name)
	if a.Embargoed(s.cfg.Now()) || a.World() {
		return ""
	}
	var who []string
	for _, g := range a.Grants {
		if g.Kind == kind {
			who = append(who, s.accessName(g.Kind, g.Name))
		}
	}
	return strings.Join(who, " or ")
}

// probeService is the file's probe service, nil when a probe could only
// answer "no" (open files need none; embargoed and citation-only files
// admit nobody).
func (s *Service) probeService(rec *record.Record, name string, withContext bool) json.RawMessage {
	if s.cfg.AuthServices == nil {
		return nil
	}
	who := s.signInWho(rec, name)
	if who == "" && s.grantNames(rec, name, record.AccessLocation) == "" {
		return nil
	}
	return s.cfg.AuthServices.ProbeService(string(rec.Druid), name, who, who != "", withContext)
}

// ProbeAccess implements iiifauth.Prober: the file route's decision for
// r, and who a sign-in admits.
func (s *Service) ProbeAccess(r *http.Request, object, file string) (status int, who, reason string) {
	// The probe comes through the flow's mount, not this service's edge:
	// it is identified as a read of the file is (apiserve.Bearer.Reads).
	bearer := s.bearer()
	r, _ = bearer.Identify(r)
	ctx := context.WithValue(r.Context(), exchangeKey{}, &exchange{req: r})
	obj, fail := s.readObject(ctx, object)
	if fail != nil {
		return fail.status, "", fail.msg
	}
	f, ok := obj.rec.File(file)
	if !ok {
		return http.StatusNotFound, "", obj.rec.Druid.Qualified() + " has no file " + file
	}
	status, reason = s.fileAccessFor(r, obj.rec, f.Name) // access.go
	who = s.signInWho(obj.rec, f.Name)
	if status != 0 && who == "" {
		if s.grantNames(obj.rec, f.Name, record.AccessLocation) != "" {
			reason = s.locationNote(r.Context(), obj.rec, f.Name) // location.go
		}
	}
	return status, who, reason
}

// addAuthServices lists the probe service on a restricted content
// resource of the manifest.
func (s *Service) addAuthServices(rec *record.Record, f record.File, body *iiifRef) {
	if probe := s.probeService(rec, f.Name, true); probe != nil {
		body.Service = append(body.Service, iiifService{raw: probe})
	}
}

// MarshalJSON writes a service given as JSON (an auth service) as it is.
func (v iiifService) MarshalJSON() ([]byte, error) {
	if v.raw != nil {
		return v.raw, nil
	}
	type plain iiifService
	return json.Marshal(plain(v))
}

// authServicesJSON are the auth services of a restricted image's
// info.json: the IIIF Auth 1.0 login (with its token and logout), when a
// sign-in admits; nil otherwise. The 2.0 probe is described on the
// content resource in the manifest only: Mirador 3 reads every service of
// an info.json as a 1.0 one and stops loading the image at one without a
// profile (TestMirador3SignsInThroughAuth1).
func (s *Service) authServicesJSON(rec *record.Record, name string) []json.RawMessage {
	if s.cfg.AuthServices == nil {
		return nil
	}
	who := s.signInWho(rec, name)
	if who == "" {
		return nil
	}
	return []json.RawMessage{s.cfg.AuthServices.LoginService1(who)}
}

// withAuthInfo adds the auth services to an info.json.
func (s *Service) withAuthInfo(rec *record.Record, name string, info []byte) []byte {
	services := s.authServicesJSON(rec, name)
	if services == nil {
		return info
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(info, &doc); err != nil {
		return info
	}
	var existing []json.RawMessage
	if old, ok := doc["service"]; ok {
		_ = json.Unmarshal(old, &existing)
	}
	list, _ := json.Marshal(append(existing, services...))
	doc["service"] = list
	out, err := json.Marshal(doc)
	if err != nil {
		return info
	}
	return out
}

// refusedInfo answers the info.json of a restricted image to a request
// that may not read it (IIIF Auth 1.0's degraded description, which
// Mirador 3 signs in from): 401 or 403 with the image's size (also as its
// one size, see below) and its auth services, no pyramid needed. nil when the request may read it or
// sign-in cannot help (the usual refusal answers then).
func (s *Service) refusedInfo(ctx context.Context, rawID, name string) *refusedImageInfo {
	if s.cfg.AuthServices == nil {
		return nil
	}
	obj, fail := s.readObject(ctx, rawID)
	if fail != nil {
		return nil
	}
	f, ok := obj.rec.File(name)
	if !ok || !iiifimage.Tileable(f.MimeType) || f.Width <= 0 || f.Height <= 0 {
		return nil
	}
	status, _ := s.fileAccessFor(exchangeFrom(ctx).req, obj.rec, f.Name)
	services := s.authServicesJSON(obj.rec, f.Name)
	if status == 0 || services == nil {
		return nil
	}
	body, err := json.Marshal(map[string]any{
		"@context": "http://iiif.io/api/image/3/context.json",
		"id":       s.imageServiceID(obj.rec, f.Name),
		"type":     "ImageService3",
		"protocol": "http://iiif.io/api/image",
		"profile":  "level0",
		"width":    f.Width,
		"height":   f.Height,
		// One size, the whole image: OpenSeadragon (in Mirador 3) makes a
		// tile source of this description too, and one with neither
		// sizes nor tiles throws in its drawing loop, which then never
		// runs again, so the full description got after sign-in was
		// never drawn. Its one request is refused like any other.
		"sizes":   []map[string]int{{"width": f.Width, "height": f.Height}},
		"service": services,
	})
	if err != nil {
		return nil
	}
	return &refusedImageInfo{status: status, body: body}
}

type refusedImageInfo struct {
	status int
	body   []byte
}

func (ri *refusedImageInfo) WriteResponse(w http.ResponseWriter, _ *http.Request) error {
	h := w.Header()
	h["Content-Type"] = ctypeImageInfo
	h.Set("Cache-Control", "no-store")
	h.Set("Vary", "Authorization, Cookie")
	h.Set("X-Content-Type-Options", "nosniff")
	if ri.status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="purl"`)
	}
	w.WriteHeader(ri.status)
	_, err := bytes.NewReader(ri.body).WriteTo(w)
	return err
}

var _ purlapi.Representation = (*refusedImageInfo)(nil)
