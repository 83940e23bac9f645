package dev.periscope.api.browser;

import dev.periscope.api.browser.BrowserAction.AnswerDialog;
import dev.periscope.api.browser.BrowserAction.Check;
import dev.periscope.api.browser.BrowserAction.Clear;
import dev.periscope.api.browser.BrowserAction.Click;
import dev.periscope.api.browser.BrowserAction.Done;
import dev.periscope.api.browser.BrowserAction.Drag;
import dev.periscope.api.browser.BrowserAction.Fill;
import dev.periscope.api.browser.BrowserAction.Handler;
import dev.periscope.api.browser.BrowserAction.History;
import dev.periscope.api.browser.BrowserAction.Hover;
import dev.periscope.api.browser.BrowserAction.Navigate;
import dev.periscope.api.browser.BrowserAction.PageAction;
import dev.periscope.api.browser.BrowserAction.PointAt;
import dev.periscope.api.browser.BrowserAction.Press;
import dev.periscope.api.browser.BrowserAction.Scroll;
import dev.periscope.api.browser.BrowserAction.Select;
import dev.periscope.api.browser.BrowserAction.Type;
import dev.periscope.api.browser.BrowserAction.Upload;
import dev.periscope.api.browser.BrowserAction.Wait;
import dev.periscope.api.browser.spi.ProviderElement;

/**
 * The page actions whose result is {@link Done}: their {@code accept} performs them through the
 * {@link Handler} method their row in {@link ActionTable} names. It is declared here, returning
 * {@code Done}, so that each record still has the {@code Done accept(Handler, ProviderElement,
 * ProviderElement)} that code compiled against host API 2.11.0 and before calls on it (a record
 * that declared its own then): the JVM resolves that call to this default method.
 */
sealed interface DonePageAction extends PageAction<Done>
    permits Navigate,
        Click,
        Drag,
        Type,
        Hover,
        Clear,
        Fill,
        Press,
        Select,
        Check,
        Scroll,
        Wait,
        History,
        AnswerDialog,
        Upload,
        PointAt {
  @Override
  default Done accept(Handler handler, ProviderElement target, ProviderElement destination) {
    ActionTable.perform(this, handler, target, destination);
    return Done.DONE;
  }
}
