package fakeapiserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/kinformer/kinformer/api"
)

// Two guards, both cheap:
//
//   - The token (Options.Token) is compared in constant time, so how long a
//     refusal takes says nothing about how much of a guess was right. Both
//     sides are hashed first, so not even the token's length leaks.
//   - A server without a token answers only requests addressed to a
//     loopback Host, as `kubectl proxy` does with its --accept-hosts default.
//     Without this, any web page the learner opens could reach the server
//     through DNS rebinding (its own name, re-pointed at 127.0.0.1) and
//     read or write it; such a request carries the page's Host, not
//     127.0.0.1. Options.AllowAnyHost turns the check off.

// tokenMatches reports, in constant time, whether the Authorization header
// is "Bearer <token>".
func tokenMatches(authorization, token string) bool {
	got := sha256.Sum256([]byte(authorization))
	want := sha256.Sum256([]byte("Bearer " + token))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// checkHost returns the 403 for a request a server without a token must not
// answer: one whose Host is not loopback.
func (s *Server) checkHost(req *http.Request) *api.Status {
	if s.opts.Token != "" || s.opts.AllowAnyHost || IsLoopbackHost(req.Host) {
		return nil
	}
	return newStatus(http.StatusForbidden, api.StatusReasonForbidden,
		fmt.Sprintf("host %q is not allowed: a server without a token answers only requests addressed to a loopback host "+
			"(127.0.0.1, ::1 or localhost, with any port), so that a web page cannot reach it through DNS rebinding; "+
			"give the server a token (--token-file) or --allow-any-host", req.Host), nil)
}

// IsLoopbackHost reports whether host (a Host header or an address, with or
// without a port; IPv6 in brackets or not) names this machine's loopback
// interface: 127.0.0.0/8, ::1 or localhost.
func IsLoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") || strings.EqualFold(host, "localhost.") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
