package testkit

import (
	"sync"
	"testing"
)

// Once is a value the tests of one test binary share, made by the first
// test that asks for it (a loaded engine, an aligner): one load however
// many tests run in parallel.
type Once[T any] struct {
	once sync.Once
	val  T
	err  error
}

// Get returns the value, made by load the first time; when load failed,
// every test that asks fails with its error. Anything that may skip the
// test (SharedDir, RequireTool) belongs before Get, not in load: a skip
// inside load would leave the value unmade for every later test.
func (o *Once[T]) Get(t testing.TB, load func() (T, error)) T {
	t.Helper()
	o.once.Do(func() { o.val, o.err = load() })
	if o.err != nil {
		t.Fatal(o.err)
	}
	return o.val
}
