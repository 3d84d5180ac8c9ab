package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/kinformer/kinformer/informer"
	"github.com/kinformer/kinformer/listwatch"
)

// slowHandlerWait is how long the audit handler takes per notification
// while the page's "slow a handler" switch is on.
const slowHandlerWait = 300 * time.Millisecond

// auditHandlerName names the demo's second handler on the pod informer.
const auditHandlerName = "audit"

// addAuditHandler registers a second handler on the pod informer, "audit",
// that does nothing (an audit log would write a line) unless the page's
// "slow a handler" switch is on: then it takes slowHandlerWait per
// notification, and its listener's pending notifications pile up while
// the controller's handler, on its own listener, keeps up.
func addAuditHandler(factory informer.SharedInformerFactory, page *pageControls, ctx context.Context) error {
	wait := func() {
		if !page.slow.Load() {
			return
		}
		t := page.clockOrReal().NewTimer(page.handlerWait)
		defer t.Stop()
		select {
		case <-t.C():
		case <-ctx.Done():
		}
	}
	_, err := factory.InformerFor(listwatch.Pods).AddEventHandlerWithOptions(informer.ResourceEventHandlerFuncs{
		AddFunc:    func(any, bool) { wait() },
		UpdateFunc: func(any, any) { wait() },
		DeleteFunc: func(any) { wait() },
	}, informer.HandlerOptions{Name: auditHandlerName})
	return err
}

// pageActions are the page's buttons. The faults go through the fake
// server's own fault endpoints (POST /faults/...), so the narration tells
// them as "you: ..." from the server's trace, as it does for curl.
func pageActions(f *faults, page *pageControls, serverURL string) map[string]func(context.Context) (string, error) {
	post := func(ctx context.Context, path string) (string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL+path, nil)
		if err != nil {
			return "", err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		var r struct {
			Did  string `json:"did"`
			Then string `json:"then"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("POST %s: %s", path, resp.Status)
		}
		return r.Did + "; " + r.Then, nil
	}
	return map[string]func(context.Context) (string, error){
		"delete-pod": func(ctx context.Context) (string, error) {
			if err := f.deletePod(ctx, "you (page)", ""); err != nil {
				return "", err
			}
			return "deleted a pod of web", nil
		},
		"drop-watches": func(ctx context.Context) (string, error) {
			return post(ctx, "/faults/close-watches")
		},
		"compact": func(ctx context.Context) (string, error) {
			did, err := post(ctx, "/faults/compact")
			if err != nil {
				return "", err
			}
			more, err := post(ctx, "/faults/close-watches")
			return did + " — then " + more, err
		},
		"fail-429": func(ctx context.Context) (string, error) {
			return post(ctx, "/faults/fail?code=429&count=3&retryAfter=1")
		},
		"fail-500": func(ctx context.Context) (string, error) {
			return post(ctx, "/faults/fail?code=500&count=3")
		},
		"slow-handler": func(context.Context) (string, error) {
			on := !page.slow.Load()
			page.slow.Store(on)
			if on {
				return fmt.Sprintf("handler %q now takes %v per notification", auditHandlerName, page.handlerWait), nil
			}
			return fmt.Sprintf("handler %q is fast again", auditHandlerName), nil
		},
		"fail-reconcile": func(context.Context) (string, error) {
			page.failNext.Add(3)
			return "the next 3 reconciles fail (retried with the rate limiter's delays)", nil
		},
	}
}
