package embedcode

import (
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/embed/objectview"
)

func TestFrameHeight(t *testing.T) {
	world := objectview.Access{Level: objectview.World}
	media := func(files ...objectview.File) *objectview.Object {
		return &objectview.Object{ContentType: "media", Access: world, Resources: []objectview.Resource{{Files: files}}}
	}
	audio := objectview.File{Name: "a.wav", MimeType: "audio/wav"}
	for _, tc := range []struct {
		name string
		obj  *objectview.Object
		want int32
	}{
		{"image", &objectview.Object{ContentType: "image", HasManifest: true, Access: world,
			Resources: []objectview.Resource{{Files: []objectview.File{{Name: "i.png", MimeType: "image/png", Width: 640, Height: 480}}}}}, 500},
		{"audio", media(audio), barPx + figurePadPx + audioPlayerPx + captionPx},
		{"audio and cover", media(audio, objectview.File{Name: "c.png", MimeType: "image/png", Width: 300, Height: 300}), barPx + figurePadPx + audioPlayerPx + captionPx + 300 + coverGapPx},
		{"audio and a tall cover", media(audio, objectview.File{Name: "c.png", MimeType: "image/png", Width: 300, Height: 3000}), barPx + figurePadPx + audioPlayerPx + captionPx + maxCoverEdgePx + coverGapPx},
		{"video", media(objectview.File{Name: "v.webm", MimeType: "video/webm"}), 500},
		{"six sound files", media(audio, audio, audio, audio, audio, audio), 500},
		{"restricted audio", &objectview.Object{ContentType: "media", Access: objectview.Access{Level: objectview.CitationOnly},
			Resources: []objectview.Resource{{Files: []objectview.File{audio}}}}, 500},
	} {
		if got := FrameHeightPx(tc.obj); got != tc.want {
			t.Errorf("%s: %d px, want %d", tc.name, got, tc.want)
		}
	}
}

func TestHTMLEscapesAndSizes(t *testing.T) {
	obj := &objectview.Object{Druid: "bb000kk0000", Title: `A "quoted" <title> & more`, Access: objectview.Access{Level: objectview.World}}
	got := HTML("http://e.test/embed", "http://p.test/purl/bb000kk0000", obj, Params{MaxHeight: 320, MaxWidth: 600, HideTitle: true})
	for _, want := range []string{
		`src="http://e.test/embed/iframe?url=http%3A%2F%2Fp.test%2Fpurl%2Fbb000kk0000&amp;hide_title=true"`,
		`style="height: 100%; width: 100%; min-height: 20rem; max-height: 20rem; max-width: 37.5rem;"`,
		`title="Viewer: A &#34;quoted&#34; &lt;title&gt; &amp; more"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("code lacks %s:\n%s", want, got)
		}
	}
}
