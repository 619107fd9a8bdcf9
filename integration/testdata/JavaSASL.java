// Logs the stock ZooKeeper Java client in with SASL DIGEST-MD5 (the JAAS
// Client section given by -Djava.security.auth.login.config) and prints
// what the server made of it, one line:
//   "authenticated ids=<whoAmI ids, sorted> read=<OK|NOAUTH>" after SaslAuthenticated,
//   "authfailed" after the AuthFailed event,
//   "error <text>" otherwise.
// usage: java -cp <zookeeper jars> -Djava.security.auth.login.config=F JavaSASL.java HOST:PORT
// Used by TestSASL_JavaClientDigestMD5 in sasl_test.go.
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ClientInfo;

public class JavaSASL {
    public static void main(String[] args) throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<KeeperState> state = new AtomicReference<>();
        ZooKeeper zk = new ZooKeeper(args[0], 10000, ev -> {
            KeeperState s = ev.getState();
            if (s == KeeperState.SaslAuthenticated || s == KeeperState.AuthFailed) {
                state.set(s);
                done.countDown();
            }
        });
        try {
            if (!done.await(20, TimeUnit.SECONDS)) {
                System.out.println("error no SASL outcome within 20 s");
                return;
            }
            if (state.get() == KeeperState.AuthFailed) {
                System.out.println("authfailed");
                return;
            }
            // ZooKeeper keeps a connection's ids in a hash set: sorted, the
            // line does not depend on its order.
            List<String> ids = new ArrayList<>();
            for (ClientInfo ci : zk.whoAmI()) {
                ids.add(ci.getAuthScheme() + ":" + ci.getUser());
            }
            Collections.sort(ids);
            String read = "OK";
            try {
                zk.getData("/sasl-only", false, null);
            } catch (KeeperException.NoAuthException e) {
                read = "NOAUTH";
            }
            System.out.println("authenticated ids=" + String.join(",", ids) + " read=" + read);
        } catch (Exception e) {
            System.out.println("error " + e);
        } finally {
            zk.close();
        }
    }
}
