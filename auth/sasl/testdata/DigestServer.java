// DigestServer runs the JDK's DIGEST-MD5 SASL server the way ZooKeeper 3.8
// creates it (Sasl.createSaslServer("DIGEST-MD5", "zookeeper",
// "zk-sasl-md5", null, handler)) for the Go tests in auth/sasl to compare
// against.
//
// The handler is ZooKeeper's own SaslServerCallbackHandler when its class
// is on the class path (java -cp zookeeper.jar:slf4j-api.jar
// DigestServer.java ...), fed a "Server" section holding user_NAME options;
// otherwise a copy of its behaviour for plain user names (authorized id =
// authentication id).
//
// Arguments: "shared" or "fresh", then <user>=<password> pairs. ZooKeeper
// makes one handler per server and shares it among connections ("shared");
// "fresh" makes one per exchange, so exchanges cannot see each other. Commands on stdin, one line each,
// every string hex-encoded UTF-8:
//
//   NEW          ->  READY <handler class>
//   S <response> ->  C <challenge> | DONE <challenge> <authorization id> | ERR <message>
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import javax.security.sasl.AuthorizeCallback;
import javax.security.sasl.RealmCallback;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslServer;

public class DigestServer {
    private static final HexFormat HEX = HexFormat.of();

    public static void main(String[] args) throws Exception {
        boolean shared = args[0].equals("shared");
        Map<String, String> users = new HashMap<>();
        for (String a : java.util.Arrays.copyOfRange(args, 1, args.length)) {
            String[] kv = a.split("=", 2);
            users.put(text(kv[0]), text(kv[1]));
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        SaslServer server = null;
        CallbackHandler h = handler(users);
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.split(" ", -1);
            try {
                if (f[0].equals("NEW")) {
                    if (!shared) {
                        h = handler(users);
                    }
                    server = Sasl.createSaslServer("DIGEST-MD5", "zookeeper", "zk-sasl-md5", null, h);
                    reply("READY " + h.getClass().getName());
                } else if (f[0].equals("S")) {
                    byte[] ch = server.evaluateResponse(HEX.parseHex(f[1]));
                    if (server.isComplete()) {
                        byte[] id = server.getAuthorizationID().getBytes(StandardCharsets.UTF_8);
                        reply("DONE " + HEX.formatHex(ch) + " " + HEX.formatHex(id));
                    } else {
                        reply("C " + HEX.formatHex(ch));
                    }
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

    private static CallbackHandler handler(Map<String, String> users) throws Exception {
        Map<String, String> options = new HashMap<>();
        users.forEach((u, p) -> options.put("user_" + u, p));
        Configuration conf = new Configuration() {
            @Override
            public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
                if (!name.equals("Server")) {
                    return null;
                }
                return new AppConfigurationEntry[] {new AppConfigurationEntry(
                    "org.apache.zookeeper.server.auth.DigestLoginModule",
                    AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, options)};
            }
        };
        try {
            Class<?> c = Class.forName("org.apache.zookeeper.server.auth.SaslServerCallbackHandler");
            return (CallbackHandler) c.getConstructor(Configuration.class).newInstance(conf);
        } catch (ClassNotFoundException e) {
            return new PlainHandler(users);
        }
    }

    // PlainHandler is ZooKeeper's SaslServerCallbackHandler for user names
    // without "@" or "/", where Kerberos name rules give the name back.
    static final class PlainHandler implements CallbackHandler {
        private final Map<String, String> users;
        private String user;

        PlainHandler(Map<String, String> users) {
            this.users = users;
        }

        @Override
        public void handle(Callback[] callbacks) {
            for (Callback cb : callbacks) {
                if (cb instanceof NameCallback) {
                    NameCallback nc = (NameCallback) cb;
                    if (users.containsKey(nc.getDefaultName())) {
                        user = nc.getDefaultName();
                        nc.setName(user);
                    }
                } else if (cb instanceof PasswordCallback) {
                    if (users.containsKey(user)) {
                        ((PasswordCallback) cb).setPassword(users.get(user).toCharArray());
                    }
                } else if (cb instanceof RealmCallback) {
                    RealmCallback rc = (RealmCallback) cb;
                    rc.setText(rc.getDefaultText());
                } else if (cb instanceof AuthorizeCallback) {
                    AuthorizeCallback ac = (AuthorizeCallback) cb;
                    ac.setAuthorized(true);
                    ac.setAuthorizedID(ac.getAuthenticationID());
                }
            }
        }
    }
}
