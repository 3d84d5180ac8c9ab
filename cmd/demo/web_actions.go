package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
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

// said is what a page button did, in English and in Chinese.
type said struct{ EN, ZH string }

// pageAction is one of the page's buttons.
type pageAction func(context.Context) (said, error)

// pageActions are the page's buttons. The faults go through the fake
// server's own fault endpoints (POST /faults/...), so the narration tells
// them as "you: ..." from the server's trace, as it does for curl. Every
// button is yours: the chaos loop holds off after it (chaos_gate.go).
func pageActions(f *faults, page *pageControls, serverURL string) map[string]pageAction {
	post := func(ctx context.Context, path string) (said, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL+path, nil)
		if err != nil {
			return said{}, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return said{}, err
		}
		defer resp.Body.Close()
		var r struct {
			Did  string `json:"did"`
			Then string `json:"then"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != http.StatusOK {
			return said{}, fmt.Errorf("POST %s: %s", path, resp.Status)
		}
		endpoint, _, _ := strings.Cut(path, "?")
		return said{englishTexts.faultDid(r.Did) + "; " + r.Then,
			chineseTexts.faultDid(r.Did) + "；" + chineseTexts.faultThen(endpoint, r.Then)}, nil
	}
	actions := map[string]pageAction{
		"delete-pod": func(ctx context.Context) (said, error) {
			name, err := f.deletePod(ctx, "you (page)", "")
			if err != nil {
				return said{}, err
			}
			return said{"deleted pod default/" + name + " (web's controller replaces it)",
				"删除了 pod default/" + name + "（web 的控制器会补上它）"}, nil
		},
		"drop-watches": func(ctx context.Context) (said, error) {
			return post(ctx, "/faults/close-watches")
		},
		"compact": func(context.Context) (said, error) {
			// Not the two fault endpoints one after the other: an event or
			// a bookmark between them could bring a reflector up to the
			// compacted version, and no 410 (faults.compact).
			if err := f.compact("you (page)"); err != nil {
				return said{}, err
			}
			return said{"wrote configmap settings, compacted the history and dropped every watch: each reflector's next watch gets 410 Expired → relist",
				"写了 configmap settings，压缩了历史并断开所有监听：每个反射器的下一次监听得到 410 过期 → 全量同步"}, nil
		},
		"fail-429": func(ctx context.Context) (said, error) {
			return post(ctx, "/faults/fail?code=429&count=3&retryAfter=1")
		},
		"fail-500": func(ctx context.Context) (said, error) {
			return post(ctx, "/faults/fail?code=500&count=3")
		},
		"slow-handler": func(context.Context) (said, error) {
			on := !page.slow.Load()
			page.slow.Store(on)
			wait := human(page.handlerWait)
			if on {
				return said{fmt.Sprintf("handler %q now takes %s per notification", auditHandlerName, wait),
					fmt.Sprintf("事件处理器 %q 现在每个通知要花 %s", auditHandlerName, wait)}, nil
			}
			return said{fmt.Sprintf("handler %q is fast again", auditHandlerName),
				fmt.Sprintf("事件处理器 %q 又变快了", auditHandlerName)}, nil
		},
		"fail-reconcile": func(context.Context) (said, error) {
			page.failNext.Add(3)
			return said{"the next 3 reconciles fail (retried with the rate limiter's delays)",
				"接下来 3 次调谐会失败（按限速器的延迟重试）"}, nil
		},
	}
	for name, act := range actions {
		actions[name] = func(ctx context.Context) (said, error) {
			f.gate.yoursNow()
			return act(ctx)
		}
	}
	return actions
}

// saidError is a button's failure in both languages.
func saidError(err error) said {
	if errors.Is(err, errNoPodToDelete) {
		return said{err.Error(), "web 没有可以删除的 pod"}
	}
	return said{err.Error(), "失败：" + err.Error()}
}
