package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// The token can come from three places. --token is simplest but shows in
// the process list (ps, /proc/PID/cmdline) to every user of the machine;
// --token-file and the environment variable do not. The token itself is
// never printed: the startup log says that one is required and where it
// came from, and the suggested curl and kubectl lines refer to it by the
// same source ("$(cat FILE)", "$KINFORMER_TOKEN").

// tokenEnv is the environment variable the token is read from when neither
// --token nor --token-file is given.
const tokenEnv = "KINFORMER_TOKEN"

// token is the server's token and how to refer to it in a shell line.
type token struct {
	value  string
	source string // "--token", "--token-file FILE", "$KINFORMER_TOKEN"; "" for none
	shell  string // what to write, in double quotes, in a suggested command instead of the value
}

func (t token) describe() string {
	if t.value == "" {
		return "none"
	}
	return "required (from " + t.source + ")"
}

// resolveToken picks the token: --token, else --token-file, else the
// environment. Giving both flags is an error; so is an empty token file.
func resolveToken(flagValue, file, env string) (token, error) {
	switch {
	case flagValue != "" && file != "":
		return token{}, errors.New("give the token with --token or --token-file, not both")
	case flagValue != "":
		return token{value: flagValue, source: "--token", shell: "$TOKEN"}, nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return token{}, fmt.Errorf("--token-file: %w", err)
		}
		v := strings.TrimSpace(string(b))
		if v == "" {
			return token{}, fmt.Errorf("--token-file %s is empty", file)
		}
		return token{value: v, source: "--token-file " + file, shell: "$(cat " + shellQuote(file) + ")"}, nil
	case strings.TrimSpace(env) != "":
		return token{value: strings.TrimSpace(env), source: "$" + tokenEnv, shell: "$" + tokenEnv}, nil
	}
	return token{}, nil
}

// shellQuote quotes a path for a shell line if it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hostPolicy says, for the warning, what happens to requests addressed to
// a non-loopback host.
func hostPolicy(allowAnyHost bool) string {
	if allowAnyHost {
		return "answered (--allow-any-host)"
	}
	return "refused with 403 (only a loopback Host is answered without a token)"
}
