// LockBench runs Apache Curator's InterProcessMutex for zkbench -op lock:
// one CuratorFramework client (its own session) per connect string given,
// every client contending for the same lock in a loop with an empty critical
// section. zkbench compiles this file with javac at run time and reads what
// it prints; the statistics are computed in Go (cmd/zkbench/lockstats.go),
// the same code as for the Go clients.
//
// Usage: LockBench lockPath warmupMs durationMs sessionTimeoutMs connectString...
//
// Output, one item per line:
//   ready                          every client is connected
//   start                          the measured window begins (t = 0)
//   acq CLIENT T_NS HANDOFF_NS DONE_NS
//                                  an acquisition: when acquire returned, the
//                                  time since the previous holder began its
//                                  release (-1: none yet), and when its own
//                                  release returned (-1: release failed); all
//                                  times in ns since the window began
//   err CLIENT COUNT FIRST_ERROR   failed acquires or releases of a client
//   end
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryForever;

public final class LockBench {
    // Written by the holder just before it releases, read by the next one
    // just after it acquired: the release-to-acquire handoff.
    private static final AtomicLong lastRelease = new AtomicLong(Long.MIN_VALUE);

    private static final class Client implements Runnable {
        final int id;
        final CuratorFramework cf;
        final InterProcessMutex mutex;
        final long start, end; // nanoTime of the window's start and end
        final StringBuilder out = new StringBuilder();
        long errors;
        String firstError;

        Client(int id, CuratorFramework cf, String path, long start, long end) {
            this.id = id;
            this.cf = cf;
            this.mutex = new InterProcessMutex(cf, path);
            this.start = start;
            this.end = end;
        }

        void fail(Exception e) {
            errors++;
            if (firstError == null) {
                firstError = describe(e).replace('\n', ' ');
            }
        }

        // describe names the exception, where it was thrown (the innermost ten
        // Curator frames) and its causes.
        static String describe(Throwable e) {
            StringBuilder b = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t != e) {
                    b.append(" caused by ");
                }
                b.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
                int n = 0;
                for (StackTraceElement f : t.getStackTrace()) {
                    if (f.getClassName().startsWith("org.apache.curator") && n++ < 10) {
                        b.append(" at ").append(f.getClassName().replaceAll(".*\\.", ""))
                         .append('.').append(f.getMethodName()).append(':').append(f.getLineNumber());
                    }
                }
            }
            return b.toString();
        }

        public void run() {
            while (true) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                boolean got;
                try {
                    got = mutex.acquire(left, TimeUnit.NANOSECONDS);
                } catch (Exception e) {
                    fail(e);
                    sleepQuietly(10);
                    continue;
                }
                if (!got) {
                    return; // the window ended while waiting
                }
                long acq = System.nanoTime();
                long prev = lastRelease.get();
                long handoff = prev == Long.MIN_VALUE ? -1 : Math.max(0, acq - prev);
                lastRelease.set(System.nanoTime());
                long done;
                try {
                    mutex.release();
                    done = System.nanoTime() - start;
                } catch (Exception e) {
                    fail(e);
                    done = -1;
                }
                out.append("acq ").append(id).append(' ').append(acq - start).append(' ')
                   .append(handoff).append(' ').append(done).append('\n');
            }
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            System.err.println("usage: LockBench lockPath warmupMs durationMs sessionTimeoutMs connectString...");
            System.exit(2);
        }
        String path = args[0];
        long warmupMs = Long.parseLong(args[1]);
        long durationMs = Long.parseLong(args[2]);
        int sessionTimeoutMs = Integer.parseInt(args[3]);
        List<CuratorFramework> cfs = new ArrayList<>();
        for (int i = 4; i < args.length; i++) {
            // A retry every 10 ms, never giving up, so that after a leader
            // kill the client, not its back-off, finds the new leader, and
            // an election longer than a bounded policy's retries does not
            // fail the acquire; each retry first waits for the connection.
            CuratorFramework cf = CuratorFrameworkFactory.builder()
                .connectString(args[i])
                .sessionTimeoutMs(sessionTimeoutMs)
                .connectionTimeoutMs(15000)
                .retryPolicy(new RetryForever(10))
                .build();
            cf.start();
            if (!cf.blockUntilConnected(30, TimeUnit.SECONDS)) {
                System.err.println("no connection to " + args[i]);
                System.exit(1);
            }
            cfs.add(cf);
        }
        System.out.println("ready");
        System.out.flush();
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(warmupMs);
        long end = start + TimeUnit.MILLISECONDS.toNanos(durationMs);
        List<Client> clients = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < cfs.size(); i++) {
            Client c = new Client(i, cfs.get(i), path, start, end);
            clients.add(c);
            Thread t = new Thread(c, "lock-" + i);
            threads.add(t);
            t.start();
        }
        long wait = start - System.nanoTime();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
        System.out.println("start");
        System.out.flush();
        for (Thread t : threads) {
            t.join();
        }
        StringBuilder out = new StringBuilder();
        for (Client c : clients) {
            out.append(c.out);
            if (c.errors > 0) {
                out.append("err ").append(c.id).append(' ').append(c.errors).append(' ').append(c.firstError).append('\n');
            }
        }
        out.append("end\n");
        System.out.print(out);
        System.out.flush();
        for (CuratorFramework cf : cfs) {
            cf.close();
        }
        System.exit(0);
    }
}
