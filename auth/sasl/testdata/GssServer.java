// GssServer runs the JDK's GSSAPI SASL server the way ZooKeeper 3.8's
// ZooKeeperSaslServer creates it (mechanism "GSSAPI", the service
// principal's first component as protocol and its second as server name,
// no properties, inside Subject.doAs of the keytab login) with
// ZooKeeper's SaslServerCallbackHandler when ZooKeeper's jar is on the
// class path, for the Go tests in auth/sasl.
//
//   java -cp zookeeper.jar:slf4j-api.jar -Djava.security.krb5.conf=<krb5.conf> GssServer.java
//
// Commands (strings hex-encoded UTF-8, tokens hex), one answer line each:
//
//   NEW <principal> <keytab path> <removeHost 0|1> <removeRealm 0|1>
//                  ->  READY <callback handler class> | ERR <message>
//   S <response>   ->  C <challenge> | DONE <challenge> <authorization id> | ERR <message>
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import javax.security.auth.Subject;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import javax.security.auth.login.LoginContext;
import javax.security.sasl.AuthorizeCallback;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslServer;

public class GssServer {
    private static final HexFormat HEX = HexFormat.of();

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        SaslServer server = null;
        Subject subject = null;
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.split(" ", -1);
            try {
                if (f[0].equals("NEW")) {
                    server = null;
                    String principal = text(f[1]);
                    Configuration cfg = jaas(principal, text(f[2]));
                    System.setProperty("zookeeper.kerberos.removeHostFromPrincipal", f[3].equals("1") ? "true" : "false");
                    System.setProperty("zookeeper.kerberos.removeRealmFromPrincipal", f[4].equals("1") ? "true" : "false");
                    LoginContext lc = new LoginContext("Server", new Subject(), null, cfg);
                    lc.login();
                    subject = lc.getSubject();
                    CallbackHandler cbh = handler(cfg);
                    String[] parts = principal.split("[/@]");
                    server = Subject.doAs(subject, (PrivilegedExceptionAction<SaslServer>) () ->
                        Sasl.createSaslServer("GSSAPI", parts[0], parts[1], null, cbh));
                    reply("READY " + cbh.getClass().getName());
                } else if (f[0].equals("S")) {
                    byte[] resp = HEX.parseHex(f[1]);
                    final SaslServer s = server;
                    byte[] ch = Subject.doAs(subject, (PrivilegedExceptionAction<byte[]>) () -> s.evaluateResponse(resp));
                    String hex = HEX.formatHex(ch == null ? new byte[0] : ch);
                    if (server.isComplete()) {
                        reply("DONE " + hex + " " + HEX.formatHex(server.getAuthorizationID().getBytes(StandardCharsets.UTF_8)));
                    } else {
                        reply("C " + hex);
                    }
                } else {
                    reply("ERR unknown command");
                }
            } catch (Exception e) {
                Throwable t = e;
                StringBuilder sb = new StringBuilder(e.toString());
                while ((t = t.getCause()) != null) {
                    sb.append(" <- ").append(t);
                }
                reply("ERR " + sb.toString().replace('\n', ' '));
            }
        }
    }

    private static Configuration jaas(String principal, String keytab) {
        return new Configuration() {
            @Override
            public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
                Map<String, String> o = new HashMap<>();
                o.put("useKeyTab", "true");
                o.put("keyTab", keytab);
                o.put("principal", principal);
                o.put("storeKey", "true");
                o.put("isInitiator", "false");
                o.put("useTicketCache", "false");
                o.put("doNotPrompt", "true");
                o.put("refreshKrb5Config", "true");
                return new AppConfigurationEntry[] {new AppConfigurationEntry(
                    "com.sun.security.auth.module.Krb5LoginModule",
                    AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, o)};
            }
        };
    }

    // ZooKeeper's handler when its jar is on the class path; otherwise one
    // that authorizes the authenticated name only.
    private static CallbackHandler handler(Configuration cfg) throws Exception {
        try {
            Class<?> c = Class.forName("org.apache.zookeeper.server.auth.SaslServerCallbackHandler");
            return (CallbackHandler) c.getConstructor(Configuration.class).newInstance(cfg);
        } catch (ClassNotFoundException e) {
            return callbacks -> {
                for (Callback cb : callbacks) {
                    if (cb instanceof AuthorizeCallback) {
                        AuthorizeCallback ac = (AuthorizeCallback) cb;
                        ac.setAuthorized(ac.getAuthenticationID().equals(ac.getAuthorizationID()));
                    }
                }
            };
        }
    }

    private static String text(String hex) {
        return new String(HEX.parseHex(hex), StandardCharsets.UTF_8);
    }

    private static void reply(String s) {
        System.out.println(s);
        System.out.flush();
    }
}
