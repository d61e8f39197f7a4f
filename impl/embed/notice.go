package embed

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/gen/embedapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/embed/purlref"
)

// iframePath is the viewer document's path (relative to the base URL).
const iframePath = "/iframe"

// errorRenderer writes every refused request as the contract's Error body,
// except those of the viewer document (/iframe), which a person sees in a
// frame on somebody else's page: they get an HTML notice saying what
// happened in words, with the same status (a 405 keeps the Error body,
// as for every path). A validation failure of `format` (a value outside
// its enum) becomes 501, as the oEmbed specification asks for unsupported
// formats.
func errorRenderer(provider string) apiserve.ErrorRenderer {
	return func(c echo.Context, apiErr *apiserve.Error) error {
		status, msg := apiErr.Status, apiErr.Message
		c.Response().Header().Set("X-Content-Type-Options", "nosniff")
		if c.Request().URL.Path == iframePath && status != http.StatusMethodNotAllowed {
			return writeNotice(c, provider, apiErr)
		}
		if status == http.StatusBadRequest && apiErr.Parameter == "format" {
			status = http.StatusNotImplemented
			msg = fmt.Sprintf("format %q is not supported (use json or xml)", truncate(c.QueryParam("format"), 64))
		}
		body := embedapi.Error{Status: status, Error: http.StatusText(status), Message: msg}
		if apiErr.Parameter != "" {
			p := apiErr.Parameter
			body.Parameter = &p
		}
		return c.JSON(status, body)
	}
}

// noticeData is the notice template's input.
type noticeData struct {
	Status   int
	Heading  string
	Text     string
	Advice   string // what whoever set up the embed can do
	Detail   string // the service's own message, for whoever set up the embed
	Provider string
	Favicon  template.URL
}

// notice says in words what went wrong with a viewer request.
func notice(provider string, apiErr *apiserve.Error) noticeData {
	d := noticeData{Status: apiErr.Status, Provider: provider, Detail: apiErr.Message, Favicon: embedFavicon}
	switch {
	case apiErr.Status == http.StatusNotFound && errors.Is(apiErr.Err, purlref.ErrNotPURL):
		d.Heading = "This link does not lead to an item"
		d.Text = "The address given to this viewer is not the link of an item in " + provider + ": it may be mistyped or cut short."
		d.Advice = "Whoever made this page can copy the embed code again from the item's page."
	case apiErr.Status == http.StatusNotFound:
		d.Heading = "This item is not available"
		d.Text = "No item of " + provider + " is published at this address. It may have been withdrawn, or the address may be mistyped."
	case apiErr.Status == http.StatusBadRequest:
		d.Heading = "This viewer cannot open the item"
		d.Text = "The embed code is incomplete or was changed after it was copied."
		d.Advice = "Whoever made this page can copy it again from the item's page."
	case apiErr.Status == http.StatusBadGateway || apiErr.Status == http.StatusGatewayTimeout:
		d.Heading = "This item cannot be shown right now"
		d.Text = "The repository of " + provider + " did not answer. Please try again in a few minutes."
	default:
		d.Heading = "This item cannot be shown"
		d.Text = "The viewer could not open this item (" + strconv.Itoa(apiErr.Status) + " " + http.StatusText(apiErr.Status) + ")."
	}
	return d
}

func writeNotice(c echo.Context, provider string, apiErr *apiserve.Error) error {
	var buf bytes.Buffer
	if err := noticeTemplate.Execute(&buf, notice(provider, apiErr)); err != nil {
		return fmt.Errorf("rendering the viewer notice: %w", err)
	}
	h := c.Response().Header()
	// Shown in frames of any site, like the viewer it replaces.
	h.Set("Content-Security-Policy", "frame-ancestors *")
	h.Set("Cache-Control", "no-store")
	return c.Blob(apiErr.Status, "text/html; charset=utf-8", buf.Bytes())
}

// embedFavicon is the viewer's icon (a data: URL: no request, no route).
const embedFavicon = "data:image/svg+xml," +
	"%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E" +
	"%3Crect width='32' height='32' rx='6' fill='%231a4f8b'/%3E" +
	"%3Cpath d='M7 8h8a2 2 0 0 1 1 .3A2 2 0 0 1 17 8h8v16h-8a1 1 0 0 0-1 1 1 1 0 0 0-1-1H7z' fill='%23fff'/%3E" +
	"%3Cpath d='M16 9v15' stroke='%231a4f8b' stroke-width='1.2'/%3E%3C/svg%3E"

var noticeTemplate = template.Must(template.New("notice").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{{.Heading}}</title>
<link rel="icon" href="{{.Favicon}}" type="image/svg+xml">
<style>
html,body{height:100%;margin:0}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;background:#f6f6f6;display:flex;box-sizing:border-box;padding:1rem;overflow:auto}
/* Centred with auto margins: a notice taller than a small frame starts at
   its top instead of being cut off above it. */
.sitesvc-notice{margin:auto;max-width:32rem;background:#fff;border-left:4px solid #b26b00;padding:.75rem 1rem;box-shadow:0 1px 3px rgba(0,0,0,.15)}
.sitesvc-notice h1{font-size:1.1rem;margin:0 0 .4rem}
.sitesvc-notice p{margin:.3rem 0}
.sitesvc-notice-detail{color:#555;font-size:.85rem}
@media (max-height:260px),(max-width:360px){body{padding:.4rem;font-size:14px}.sitesvc-notice{padding:.4rem .6rem}.sitesvc-notice-advice,.sitesvc-notice-detail{display:none}}
</style>
</head>
<body>
<main class="sitesvc-notice" data-status="{{.Status}}">
<h1>{{.Heading}}</h1>
<p>{{.Text}}</p>
{{if .Advice}}<p class="sitesvc-notice-advice">{{.Advice}}</p>
{{end}}<p class="sitesvc-notice-detail">{{.Provider}} viewer: {{.Detail}} ({{.Status}}).</p>
</main>
</body>
</html>
`))
