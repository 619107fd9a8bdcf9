package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/zkraft/zkraft/auth/digestmd5"
	"github.com/zkraft/zkraft/auth/jaas"
)

// The JAAS and client properties zkCli.sh users set for SASL.
const (
	propJAAS       = jaas.LoginConfigProperty // java.security.auth.login.config
	propSASL       = "zookeeper.sasl.client"  // "false" turns SASL off
	propSection    = "zookeeper.sasl.clientconfig"
	defaultSection = "Client"
	// digestModule is the login module whose username and password options
	// the Java client logs in with by DIGEST-MD5.
	digestModule = "org.apache.zookeeper.server.auth.DigestLoginModule"
)

// Errors of the SASL options and exchange.
var (
	errSASLFailed    = errors.New("SASL authentication failed")
	errSASLNoSection = errors.New("no JAAS configuration section")
	errSASLModule    = errors.New("unsupported JAAS login module")
	errSASLPassword  = errors.New("-sasl-user needs -sasl-password-file")
)

// saslOptions are the flags that make zkcli log in by SASL DIGEST-MD5 on
// every connection, as ZooKeeper's Java client does with a JAAS file.
type saslOptions struct {
	jaasFile, section, enabled string // the -D properties, as zkCli.sh's JVM takes them
	user, passwordFile         string
}

func (o *saslOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.jaasFile, "D"+propJAAS, "", "JAAS `file` whose Client section (DigestLoginModule username/password) zkcli logs in with by SASL DIGEST-MD5, as zkCli.sh's JVM flag")
	fs.StringVar(&o.section, "D"+propSection, "", "JAAS `section` to log in with (default Client)")
	fs.StringVar(&o.enabled, "D"+propSASL, "", "false: no SASL even with a JAAS file")
	fs.StringVar(&o.user, "sasl-user", "", "log in by SASL DIGEST-MD5 as `user` (with -sasl-password-file)")
	fs.StringVar(&o.passwordFile, "sasl-password-file", "", "`file` whose first line is the -sasl-user password")
}

// client returns the DIGEST-MD5 credentials to log in with, or nil for no
// SASL. Flags win over the -client-configuration file's keys, which win
// over -D flags in $CLIENT_JVMFLAGS and $JVMFLAGS (zkCli.sh's JVM
// flags), as the Java client's file wins over system properties.
func (o *saslOptions) client(clientConfig string) (*digestmd5.Client, error) {
	if o.user != "" || o.passwordFile != "" {
		return o.plain()
	}
	props, err := o.properties(clientConfig)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(strings.TrimSpace(props[propSASL]), "false") || props[propJAAS] == "" {
		return nil, nil
	}
	return fromJAAS(strings.TrimPrefix(props[propJAAS], "="), props)
}

// plain reads -sasl-user and -sasl-password-file.
func (o *saslOptions) plain() (*digestmd5.Client, error) {
	if o.user == "" || o.passwordFile == "" {
		return nil, errSASLPassword
	}
	data, err := os.ReadFile(o.passwordFile)
	if err != nil {
		return nil, fmt.Errorf("-sasl-password-file: %w", err)
	}
	pw, _, _ := strings.Cut(string(data), "\n")
	return &digestmd5.Client{Username: o.user, Password: strings.TrimSuffix(pw, "\r")}, nil
}

// properties gathers the SASL properties from the JVM flags variables,
// the -client-configuration file and the -D flags, later ones winning.
func (o *saslOptions) properties(clientConfig string) (map[string]string, error) {
	props := map[string]string{}
	for _, env := range []string{"JVMFLAGS", "CLIENT_JVMFLAGS"} {
		f, err := jaas.ParseJVMFlags(os.Getenv(env))
		if err != nil {
			return nil, fmt.Errorf("$%s: %w", env, err)
		}
		copyKeys(props, f.Properties)
	}
	if clientConfig != "" {
		file, err := readProperties(clientConfig)
		if err != nil {
			return nil, fmt.Errorf("-client-configuration: %w", err)
		}
		copyKeys(props, file)
	}
	copyKeys(props, map[string]string{propJAAS: o.jaasFile, propSection: o.section, propSASL: o.enabled})
	return props, nil
}

// copyKeys copies the SASL keys set in from into to.
func copyKeys(to, from map[string]string) {
	for _, k := range []string{propJAAS, propSection, propSASL} {
		if v, ok := from[k]; ok && v != "" {
			to[k] = v
		}
	}
}

// fromJAAS reads the credentials from the JAAS file's client section, as
// the Java client does: the section must exist (Java throws a
// LoginException otherwise) and hold a DigestLoginModule entry.
func fromJAAS(path string, props map[string]string) (*digestmd5.Client, error) {
	cfg, err := jaas.ParseFile(path, jaas.SystemProperties(props))
	if err != nil {
		return nil, fmt.Errorf("-D%s: %w", propJAAS, err)
	}
	section := props[propSection]
	if section == "" {
		section = defaultSection
	}
	entries, ok := cfg.Section(section)
	if !ok {
		return nil, fmt.Errorf("%w named '%s' in %s", errSASLNoSection, section, path)
	}
	for _, e := range entries {
		if e.Module == digestModule {
			return &digestmd5.Client{Username: e.Options["username"], Password: e.Options["password"]}, nil
		}
	}
	return nil, fmt.Errorf("%w in section '%s' of %s: %s (zkcli logs in with %s only; no GSSAPI/Kerberos)",
		errSASLModule, section, path, entries[0].Module, digestModule)
}
