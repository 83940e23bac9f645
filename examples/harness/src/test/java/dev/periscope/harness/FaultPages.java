package dev.periscope.harness;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Pages that hurt a browser, for the chaos suite and the load benchmark. */
public final class FaultPages {
  private FaultPages() {}

  /**
   * Adds to {@code site}: {@code /wedge} (a button whose handler never returns, and one that wedges
   * the page 300 ms later), {@code /allocate} (allocates until its renderer dies), {@code /alerts}
   * (an endless alert loop), {@code /loop} (a script that redirects in a loop), {@code /mutate}
   * (10,000 nodes a second, and a counting button), {@code /never} (accepts the connection and
   * never answers, until {@code released}).
   */
  public static LoginSite addTo(LoginSite site, CountDownLatch released) {
    return site.page(
            "/wedge",
            """
            <button onclick="while (true) {}">Wedge now</button>
            <button onclick="setTimeout(() => { while (true) {} }, 300)">Wedge later</button>""")
        .page(
            "/allocate",
            """
            <button onclick="setTimeout(() => { const keep = []; while (true) keep.push(new Array(1e6).fill(1.5)); },
              100)">Allocate</button>""")
        .page(
            "/alerts",
            "<button onclick=\"setTimeout(() => { while (true) alert('again'); }, 100)\">Alerts</button>")
        .page("/loop", "<p>looping</p><script>location.replace('/loop?' + Date.now());</script>")
        .page(
            "/mutate",
            """
            <button onclick="document.title = 'clicked ' + (++window.clicks || (window.clicks = 1))">Count</button>
            <div id="churn"></div>
            <script>
              const churn = document.getElementById('churn');
              setInterval(() => {
                for (let i = 0; i < 100; i++) {
                  const span = document.createElement('span');
                  span.textContent = 'node ' + Math.random();
                  churn.appendChild(span);
                  if (churn.childElementCount > 500) churn.firstChild.remove();
                }
              }, 10);
            </script>""")
        .handler(
            "/never",
            exchange -> {
              try {
                released.await(120, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              exchange.close();
            });
  }
}
