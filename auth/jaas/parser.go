package jaas

import (
	"fmt"
	"strings"
)

// parser is ConfigFile's recursive descent over the tokens.
type parser struct {
	lx     *lexer
	tok    token
	lookup func(string) (string, bool)
}

func (p *parser) parse() (*Config, error) {
	cfg := &Config{sections: map[string][]Entry{}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	for p.tok.kind != tEOF {
		if err := p.section(cfg); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

func (p *parser) advance() (err error) {
	p.tok, err = p.lx.next()
	return err
}

// fail is a syntax error at the current token.
func (p *parser) fail(format string, args ...any) error {
	return &LineError{Line: p.lx.line(p.tok.start), Msg: fmt.Sprintf(format, args...), Err: ErrSyntax}
}

// section parses `Name { entries } ;`.
func (p *parser) section(cfg *Config) error {
	nameTok := p.tok
	name, err := p.text("section name")
	if err != nil {
		return err
	}
	if err := p.char('{'); err != nil {
		return err
	}
	var entries []Entry
	for !p.is('}') {
		e, err := p.entry()
		if err != nil {
			return err
		}
		entries = append(entries, e)
	}
	if err := p.char('}'); err != nil {
		return err
	}
	if err := p.char(';'); err != nil {
		return err
	}
	if _, dup := cfg.sections[name]; dup {
		return &LineError{Line: p.lx.line(nameTok.start), Msg: fmt.Sprintf("section %q appears twice", name), Err: ErrSyntax}
	}
	cfg.sections[name] = entries
	cfg.names = append(cfg.names, name)
	return nil
}

// entry parses `ClassName Flag [key=value ...] ;`.
func (p *parser) entry() (Entry, error) {
	var e Entry
	var err error
	modTok := p.tok
	if e.Module, err = p.text("login module class name"); err != nil {
		return e, err
	}
	flagTok := p.tok
	if e.Flag, err = p.text("control flag"); err != nil {
		return e, err
	}
	switch e.Flag = strings.ToLower(e.Flag); e.Flag {
	case "required", "requisite", "sufficient", "optional":
	default:
		p.tok = flagTok
		return e, p.fail("invalid control flag %q", flagTok.text)
	}
	e.Options = map[string]string{}
	for !p.is(';') {
		if err := p.option(e.Options); err != nil {
			return e, err
		}
	}
	if e.Module == "" {
		// AppConfigurationEntry refuses it, once the entry is read.
		p.tok = modTok
		return e, p.fail("empty login module class name")
	}
	return e, p.advance()
}

// option parses `key = value`, expanding the value.
func (p *parser) option(opts map[string]string) error {
	key, err := p.text("option key")
	if err != nil {
		return err
	}
	if err := p.char('='); err != nil {
		return err
	}
	valTok := p.tok
	val, err := p.text("option value")
	if err != nil {
		return err
	}
	if val, err = expand(val, p.lookup); err != nil {
		return &LineError{Line: p.lx.line(valTok.start), Msg: err.Error(), Err: ErrExpand}
	}
	opts[key] = val
	return nil
}

// is reports whether the current token is the character c.
func (p *parser) is(c rune) bool { return p.tok.kind == tChar && p.tok.ch == c }

// char consumes the character c.
func (p *parser) char(c rune) error {
	if !p.is(c) {
		return p.fail("expected %q, found %s", c, p.describe())
	}
	return p.advance()
}

// text consumes a bare word or a double-quoted string.
func (p *parser) text(what string) (string, error) {
	t := p.tok
	if t.kind != tWord && !(t.kind == tQuoted && t.ch == '"') {
		return "", p.fail("expected %s, found %s", what, p.describe())
	}
	return t.text, p.advance()
}

func (p *parser) describe() string {
	switch t := p.tok; t.kind {
	case tEOF:
		return "end of file"
	case tWord:
		return fmt.Sprintf("%q", t.text)
	case tQuoted:
		return fmt.Sprintf("%c%s%c", t.ch, t.text, t.ch)
	case tNumber:
		return fmt.Sprintf("number %s (quote values that start with a digit, '.' or '-')", t.text)
	default:
		return fmt.Sprintf("%q", t.ch)
	}
}
