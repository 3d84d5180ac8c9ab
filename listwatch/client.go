package listwatch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/kinformer/kinformer/listwatch/internal/fastdecode"
	"github.com/kinformer/kinformer/trace"
)

// Client talks HTTP to one API server: it is the only code in kinformer
// that does. It holds the connection pool, so make one per server and share
// it (it is safe for concurrent use). Typed access to one resource is
// For[T](client, resource); a Reflector's ListerWatcher is
// NewFilteredListWatchFromClient(client, resource, ...).
type Client struct {
	base      *url.URL
	http      *http.Client
	token     string
	tokenFile string
	userAgent string
	timeout   time.Duration
	maxFrame  int
	decoder   decoder       // Config.Decoder and Config.DecodeWorkers, defaulted (decode.go)
	tracer    *trace.Tracer // stage "listwatch"; nil: off
}

// NewClient checks cfg and builds a Client. It does not contact the server.
func NewClient(cfg Config) (*Client, error) {
	if cfg.DecodeWorkers < 0 {
		return nil, fmt.Errorf("listwatch: Config.DecodeWorkers is %d: give 0 (the default) or more", cfg.DecodeWorkers)
	}
	if cfg.Decoder != DecodeFast && cfg.Decoder != DecodePlain {
		return nil, fmt.Errorf("listwatch: Config.Decoder is %v: give DecodeFast (the default) or DecodePlain", cfg.Decoder)
	}
	base, err := cfg.serverURL()
	if err != nil {
		return nil, err
	}
	t, err := cfg.transport()
	if err != nil {
		return nil, err
	}
	c := &Client{
		base:      base,
		http:      &http.Client{Transport: t},
		token:     cfg.BearerToken,
		tokenFile: cfg.BearerTokenFile,
		userAgent: cfg.UserAgent,
		timeout:   cfg.Timeout,
		maxFrame:  cfg.MaxWatchFrameSize,
		decoder:   decoder{kind: cfg.Decoder, workers: cfg.DecodeWorkers},
		tracer:    cfg.Tracer.Stage(trace.StageListWatch),
	}
	if c.userAgent == "" {
		c.userAgent = fmt.Sprintf("kinformer/v0 (%s/%s)", runtime.GOOS, runtime.GOARCH)
	}
	if c.maxFrame <= 0 {
		c.maxFrame = DefaultMaxWatchFrameSize
	}
	if c.decoder.workers == 0 {
		c.decoder.workers = fastdecode.DefaultWorkers()
	}
	if c.tokenFile != "" {
		if _, err := c.bearerToken(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Server returns the base URL requests go to.
func (c *Client) Server() string { return c.base.String() }

// bearerToken is the token to send: the token file's content if one is
// configured (read on every request, so a rotated service-account token is
// picked up; client-go caches it for a minute, but kinformer sends few
// requests: a watch is one request for minutes), else the static token.
func (c *Client) bearerToken() (string, error) {
	if c.tokenFile == "" {
		return c.token, nil
	}
	b, err := os.ReadFile(c.tokenFile)
	if err != nil {
		return "", fmt.Errorf("listwatch: reading the bearer token file: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// request is one API call before it is sent.
type request struct {
	verb        string // for messages: list, watch, get, create, update, patch, delete
	method      string
	resource    Resource
	namespace   string
	name        string
	subresource string
	query       url.Values
	contentType string
	body        []byte
}

// newHTTPRequest builds the *http.Request for rq.
func (c *Client) newHTTPRequest(ctx context.Context, rq *request) (*http.Request, error) {
	escaped := c.base.EscapedPath() + rq.resource.Path(rq.namespace, rq.name, rq.subresource)
	path, err := url.PathUnescape(escaped)
	if err != nil {
		return nil, fmt.Errorf("listwatch: building the %s request: %w", rq.verb, err)
	}
	u := *c.base
	u.Path, u.RawPath, u.RawQuery = path, escaped, rq.query.Encode()
	var body io.Reader
	if rq.body != nil {
		body = bytes.NewReader(rq.body)
	}
	req, err := http.NewRequestWithContext(ctx, rq.method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("listwatch: building the %s request: %w", rq.verb, err)
	}
	req.Header.Set("Accept", rq.accept())
	req.Header.Set("User-Agent", c.userAgent)
	if rq.contentType != "" {
		req.Header.Set("Content-Type", rq.contentType)
	}
	token, err := c.bearerToken()
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req, nil
}

// do sends rq and returns the response if it is a 2xx; any other answer is
// returned as a *StatusError (its body read and closed). The caller closes
// the body of a 2xx response. Transport failures come back wrapped with
// what was being done ("list pods: Get ...: connection refused").
func (c *Client) do(ctx context.Context, rq *request) (*http.Response, error) {
	if err := rq.checkMetadataOnly(); err != nil {
		return nil, err
	}
	req, err := c.newHTTPRequest(ctx, rq)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", rq.verb, rq.resource.GroupResource(), err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, errorFromResponse(resp, rq.verb, rq.resource, rq.name)
	}
	return resp, nil
}

// withTimeout applies Config.Timeout to a request that is not a watch.
func (c *Client) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.timeout)
}

// errNoNew is returned when a Resource cannot make objects to decode into.
func errNoNew(r Resource) error {
	return fmt.Errorf("listwatch: resource %s has no New function to make objects with", r.GroupResource())
}
