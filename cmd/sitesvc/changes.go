package main

import (
	"sync"

	"github.com/sitelib/sitesvc/impl/purl"
)

// objectChanges passes the PURL service's change notifications to the
// services of the same process that keep copies of objects (Embed), so a
// withdrawal shows in them at once. Services register in any order: PURL
// holds the fan-out, Embed adds itself when it is built.
type objectChanges struct {
	mu        sync.Mutex
	listeners []purl.ObjectListener
}

var _ purl.ObjectListener = (*objectChanges)(nil)

func (o *objectChanges) add(l purl.ObjectListener) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.listeners = append(o.listeners, l)
}

// ObjectChanged tells every registered service.
func (o *objectChanges) ObjectChanged(id string) {
	o.mu.Lock()
	ls := o.listeners
	o.mu.Unlock()
	for _, l := range ls {
		l.ObjectChanged(id)
	}
}
