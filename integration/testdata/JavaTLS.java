// Connects the stock ZooKeeper Java client over TLS (Netty, as Kafka and
// HBase configure it) with a client certificate, and prints one line:
//   "connected ids=<whoAmI ids, sorted> x509=<OK|NOAUTH>" once connected,
//   "error <text>" otherwise.
// usage: java -cp <zookeeper and netty jars> JavaTLS.java HOST:PORT KEYSTORE.pem TRUSTSTORE.pem
// x509 reads /x509-only, whose ACL the test gives to the certificate's
// subject. Used by TestTLS_JavaClient in tls_test.go.
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ClientInfo;

public class JavaTLS {
    public static void main(String[] args) throws Exception {
        ZKClientConfig cfg = new ZKClientConfig();
        cfg.setProperty("zookeeper.client.secure", "true");
        cfg.setProperty("zookeeper.clientCnxnSocket", "org.apache.zookeeper.ClientCnxnSocketNetty");
        cfg.setProperty("zookeeper.ssl.keyStore.location", args[1]);
        cfg.setProperty("zookeeper.ssl.keyStore.type", "PEM");
        cfg.setProperty("zookeeper.ssl.trustStore.location", args[2]);
        cfg.setProperty("zookeeper.ssl.trustStore.type", "PEM");
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(args[0], 10000, ev -> {
            if (ev.getState() == KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, cfg);
        try {
            if (!connected.await(20, TimeUnit.SECONDS)) {
                System.out.println("error not connected within 20 s");
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
                zk.getData("/x509-only", false, null);
            } catch (KeeperException.NoAuthException e) {
                read = "NOAUTH";
            }
            System.out.println("connected ids=" + String.join(",", ids) + " x509=" + read);
        } catch (Exception e) {
            System.out.println("error " + e);
        } finally {
            zk.close();
        }
    }
}
