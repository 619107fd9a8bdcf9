// GssClient runs the JDK's GSSAPI SASL client the way ZooKeeper's Java
// client creates it (Sasl.createSaslClient with mechanism "GSSAPI",
// protocol "zookeeper", the server's host name, no properties, inside
// Subject.doAs of a Kerberos login) for the Go tests in auth/sasl.
//
// Run with Java 17+ as a single-file program:
//
//   java -Djava.security.krb5.conf=<krb5.conf> GssClient.java
//
// It reads commands on stdin and answers one line each; strings are
// hex-encoded UTF-8 and tokens are hex:
//
//   NEW <principal> <keytab path> <host> <mutual: 0|1> <authzid or ->
//                            ->  R <first token> | ERR <message>
//   C <challenge>            ->  R <response>    | OK | ERR <message>
//   STATE                    ->  COMPLETE | INCOMPLETE
//
// mutual 1 sets javax.security.sasl.server.authentication=true (the JDK
// then asks for mutual authentication); 0 passes no properties, as
// ZooKeeper does. OK means the client had completed before this challenge,
// which must be empty.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import javax.security.auth.Subject;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import javax.security.auth.login.LoginContext;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;

public class GssClient {
    private static final HexFormat HEX = HexFormat.of();

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        SaslClient client = null;
        Subject subject = null;
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.split(" ", -1);
            try {
                if (f[0].equals("NEW")) {
                    client = null;
                    subject = login(text(f[1]), text(f[2]));
                    String host = text(f[3]);
                    Map<String, String> props = null;
                    if (f[4].equals("1")) {
                        props = new HashMap<>();
                        props.put(Sasl.SERVER_AUTH, "true");
                    }
                    String authzid = f[5].equals("-") ? null : text(f[5]);
                    final Map<String, String> p = props;
                    client = Subject.doAs(subject, (PrivilegedExceptionAction<SaslClient>) () ->
                        Sasl.createSaslClient(new String[] {"GSSAPI"}, authzid, "zookeeper", host, p, callbacks -> {}));
                    final SaslClient c = client;
                    byte[] first = Subject.doAs(subject, (PrivilegedExceptionAction<byte[]>) () ->
                        c.hasInitialResponse() ? c.evaluateChallenge(new byte[0]) : new byte[0]);
                    reply("R " + HEX.formatHex(first));
                } else if (f[0].equals("C")) {
                    byte[] ch = HEX.parseHex(f[1]);
                    if (client.isComplete()) {
                        reply(ch.length == 0 ? "OK" : "ERR non-empty challenge after completion");
                        continue;
                    }
                    final SaslClient c = client;
                    byte[] resp = Subject.doAs(subject, (PrivilegedExceptionAction<byte[]>) () -> c.evaluateChallenge(ch));
                    reply("R " + HEX.formatHex(resp == null ? new byte[0] : resp));
                } else if (f[0].equals("STATE")) {
                    reply(client != null && client.isComplete() ? "COMPLETE" : "INCOMPLETE");
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

    private static Subject login(String principal, String keytab) throws Exception {
        Configuration cfg = new Configuration() {
            @Override
            public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
                Map<String, String> o = new HashMap<>();
                o.put("useKeyTab", "true");
                o.put("keyTab", keytab);
                o.put("principal", principal);
                o.put("storeKey", "true");
                o.put("useTicketCache", "false");
                o.put("doNotPrompt", "true");
                o.put("refreshKrb5Config", "true");
                return new AppConfigurationEntry[] {new AppConfigurationEntry(
                    "com.sun.security.auth.module.Krb5LoginModule",
                    AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, o)};
            }
        };
        LoginContext lc = new LoginContext("Client", new Subject(), null, cfg);
        lc.login();
        return lc.getSubject();
    }

    private static String text(String hex) {
        return new String(HEX.parseHex(hex), StandardCharsets.UTF_8);
    }

    private static void reply(String s) {
        System.out.println(s);
        System.out.flush();
    }
}
