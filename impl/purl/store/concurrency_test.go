package store

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/druid"
)

// A serving process and `sitesvc purl publish` share one store, and every
// process that opens the store tidies it (recover). Writers, readers and
// openers running at once, as in a busy deployment: no write fails, no read
// of a published object fails, and each object ends at its last write.
func TestWritersReadersAndOpenersAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	s := openFS(t, root)
	const objects, writes = 6, 40
	ids := make([]druid.Druid, objects)
	for i := range ids {
		ids[i], _ = druid.Parse(fmt.Sprintf("bb%03dkk%04d", i, i))
		if _, err := s.Write(ctx, ids[i], PublicXML, strings.NewReader("0")); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var others sync.WaitGroup
	// Other processes starting: each opens the store, which tidies it.
	for range 3 {
		others.Add(1)
		go func() {
			defer others.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := OpenFS(root); err != nil {
					t.Errorf("opening the store while it is written: %v", err)
					return
				}
			}
		}()
	}
	// Readers of every object; failures are counted, and the first told.
	var readFailures atomic.Int64
	var firstReadFailure atomic.Value
	others.Add(1)
	go func() {
		defer others.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, id := range ids {
				if _, _, err := ReadAll(ctx, s, id, PublicXML); err != nil {
					readFailures.Add(1)
					firstReadFailure.CompareAndSwap(nil, err.Error())
				}
			}
		}
	}()
	// Two writers per object (the server and a publisher), each its own handle.
	var writers sync.WaitGroup
	deadline := time.Now().Add(20 * time.Second)
	for _, id := range ids {
		for w := range 2 {
			writers.Add(1)
			go func() {
				defer writers.Done()
				ws := s
				if w == 1 {
					ws = openFS(t, root)
				}
				for n := 1; n <= writes && time.Now().Before(deadline); n++ {
					if _, err := ws.Write(ctx, id, PublicXML, strings.NewReader(fmt.Sprint(n))); err != nil {
						t.Errorf("write %d of %s: %v", n, id, err)
						return
					}
				}
			}()
		}
	}
	writers.Wait()
	close(stop)
	others.Wait()
	if n := readFailures.Load(); n > 0 {
		t.Errorf("%d reads of a published object failed while it was written; the first: %v", n, firstReadFailure.Load())
	}
	for _, id := range ids {
		data, _, err := ReadAll(ctx, s, id, PublicXML)
		if err != nil {
			t.Errorf("%s at the end: %v", id, err)
			continue
		}
		if string(data) != fmt.Sprint(writes) {
			t.Logf("%s ends at %q (two writers; the last to switch wins)", id, data)
		}
	}
}
