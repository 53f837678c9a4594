#pragma once
// Waiting for a dialog the window opens on its own time (a lookup, a claim, a confirmation).

#include <QTest>
#include <QWidget>

#include <functional>

namespace verity::test {

// The newest visible `Dialog` of `window` for which `ready` holds, within 15 s; null if none came.
template<typename Dialog>
Dialog *waitForDialog(QWidget *window, std::function<bool(Dialog *)> ready = {})
{
    Dialog *found = nullptr;
    (void)QTest::qWaitFor(
            [&] {
                for (Dialog *dialog : window->findChildren<Dialog *>()) {
                    if (dialog->isVisible() && (!ready || ready(dialog)))
                        found = dialog;
                }
                return found != nullptr;
            },
            15000);
    return found;
}

} // namespace verity::test
