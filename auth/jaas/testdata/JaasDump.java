// JaasDump parses JAAS login configuration files with the JDK's own parser
// (sun.security.provider.ConfigFile, what -Djava.security.auth.login.config
// uses) and prints what it read, for the Go tests in auth/jaas to compare.
//
// Run: java --add-opens java.base/sun.security.provider=ALL-UNNAMED JaasDump.java
//
// Commands on stdin, every string hex-encoded UTF-8:
//
//   PROP <name> <value>   sets a system property (for ${name}); answers OK
//   PARSE <path>          answers the sections, then END:
//                           SECTION <name>         (- for null)
//                           ENTRY <module> <REQUIRED|REQUISITE|SUFFICIENT|OPTIONAL>
//                           OPT <key> <value>      (keys sorted)
//                         or ERR <message>, then END
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.security.auth.login.AppConfigurationEntry;

public class JaasDump {
    private static final HexFormat HEX = HexFormat.of();

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.split(" ", -1);
            if (f[0].equals("PROP")) {
                System.setProperty(text(f[1]), text(f[2]));
                System.out.println("OK");
            } else if (f[0].equals("PARSE")) {
                parse(new File(text(f[1])));
                System.out.println("END");
            } else {
                System.out.println("ERR unknown command");
                System.out.println("END");
            }
            System.out.flush();
        }
    }

    private static String text(String hex) {
        return new String(HEX.parseHex(hex), StandardCharsets.UTF_8);
    }

    private static String hex(String s) {
        return HEX.formatHex(s.getBytes(StandardCharsets.UTF_8));
    }

    @SuppressWarnings("unchecked")
    private static void parse(File file) throws Exception {
        Object spi;
        try {
            spi = new sun.security.provider.ConfigFile.Spi(file.toURI());
        } catch (RuntimeException e) {
            // SecurityException wraps ConfigFile's IOException; others,
            // such as AppConfigurationEntry's IllegalArgumentException for
            // an empty module name, escape ConfigFile unwrapped.
            Throwable c = e.getCause() != null ? e.getCause() : e;
            System.out.println("ERR " + c.toString().replace('\n', ' '));
            return;
        }
        Field f = spi.getClass().getDeclaredField("configuration");
        f.setAccessible(true);
        // A section "named" by a number or a punctuation character gets
        // the name null.
        Map<String, List<AppConfigurationEntry>> conf = new TreeMap<>(java.util.Comparator.nullsFirst(java.util.Comparator.naturalOrder()));
        conf.putAll((Map<String, List<AppConfigurationEntry>>) f.get(spi));
        for (Map.Entry<String, List<AppConfigurationEntry>> s : conf.entrySet()) {
            System.out.println("SECTION " + (s.getKey() == null ? "-" : hex(s.getKey())));
            for (AppConfigurationEntry e : s.getValue()) {
                System.out.println("ENTRY " + hex(e.getLoginModuleName()) + " " + flag(e.getControlFlag()));
                for (Map.Entry<String, ?> o : new TreeMap<>(e.getOptions()).entrySet()) {
                    System.out.println("OPT " + hex(o.getKey()) + " " + hex((String) o.getValue()));
                }
            }
        }
    }

    private static String flag(AppConfigurationEntry.LoginModuleControlFlag f) {
        // toString() is "LoginModuleControlFlag: required" and so on.
        String s = f.toString();
        return s.substring(s.lastIndexOf(' ') + 1).toUpperCase();
    }
}
