// DigestClient runs the JDK's DIGEST-MD5 SASL client the way ZooKeeper's
// Java client creates it (protocol "zookeeper", server name "zk-sasl-md5",
// realm taken from the challenge) for the Go tests in auth/sasl.
//
// Run with Java 11+ as a single-file program: java DigestClient.java
// It reads commands on stdin and answers one line each; every string is
// hex-encoded UTF-8 so the platform charset plays no part:
//
//   NEW <user> <password> <authzid or ->  ->  R <first token>
//   C <challenge>                          ->  R <response> | OK | ERR <message>
//
// OK means the exchange completed (the server's rspauth was verified).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.sasl.RealmCallback;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;

public class DigestClient {
    private static final HexFormat HEX = HexFormat.of();

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        SaslClient client = null;
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.split(" ", -1);
            try {
                if (f[0].equals("NEW")) {
                    client = newClient(text(f[1]), text(f[2]), f[3].equals("-") ? null : text(f[3]));
                    byte[] first = client.hasInitialResponse() ? client.evaluateChallenge(new byte[0]) : new byte[0];
                    reply("R " + HEX.formatHex(first));
                } else if (f[0].equals("C")) {
                    byte[] resp = client.evaluateChallenge(HEX.parseHex(f[1]));
                    reply(client.isComplete() ? "OK" : "R " + HEX.formatHex(resp == null ? new byte[0] : resp));
                } else {
                    reply("ERR unknown command");
                }
            } catch (Exception e) {
                reply("ERR " + e.toString().replace('\n', ' '));
            }
        }
    }

    private static String text(String hex) {
        return new String(HEX.parseHex(hex), StandardCharsets.UTF_8);
    }

    private static void reply(String s) {
        System.out.println(s);
        System.out.flush();
    }

    private static SaslClient newClient(String user, String password, String authzid) throws Exception {
        return Sasl.createSaslClient(new String[] {"DIGEST-MD5"}, authzid, "zookeeper", "zk-sasl-md5", null,
            callbacks -> {
                for (Callback cb : callbacks) {
                    if (cb instanceof NameCallback) {
                        ((NameCallback) cb).setName(user);
                    } else if (cb instanceof PasswordCallback) {
                        ((PasswordCallback) cb).setPassword(password.toCharArray());
                    } else if (cb instanceof RealmCallback) {
                        RealmCallback rc = (RealmCallback) cb;
                        rc.setText(rc.getDefaultText());
                    }
                }
            });
    }
}
