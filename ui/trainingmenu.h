#pragma once
// The Training menu of a console window: replay the open ticket step by step, run it again
// under both refund tools (what if…), export it as a redacted read-only file, and open such a
// file in a window of its own. It keeps the replay windows it opened.

#include <QObject>

#include <functional>

class QMenu;
class QWidget;

namespace verity {

class MainWindow;
class ReplayStore;
class RoleLimits;

class TrainingMenu : public QObject
{
    Q_OBJECT

public:
    // `readOnly`: the window shows an incident export or a database this user cannot write;
    // notes and exports are refused. `limits`: whether this user may write notes (a trainer).
    TrainingMenu(ReplayStore &store, MainWindow &window, bool readOnly, const RoleLimits &limits);

    QMenu *menu() const { return m_menu; }
    // Seams for tests: where an export is saved, which export is opened (file dialogs by default).
    void setSaveChooser(std::function<QString(QWidget *, const QString &suggested)> chooser)
    {
        m_chooseSave = std::move(chooser);
    }

    // Opens the replay of a ticket; the window it opened, or nullptr with the reason shown.
    QWidget *replay(qint64 ticketId);
    // Exports a ticket (`extId` names the suggested file); the path written, or empty (the
    // reason shown) when nothing was. `asker` is the window the person asked from (the console
    // when null): the file dialog and any message belong to it, and it stays in front.
    QString exportTicket(qint64 ticketId, const QString &extId, QWidget *asker = nullptr);
    // Opens an incident export in a window of its own, read-only; nullptr when it cannot.
    MainWindow *openExport(const QString &path);

    // Opens the what-if of a ticket and starts it; nullptr (the reason shown) when it cannot run.
    QWidget *whatIf(qint64 ticketId);

private:
    qint64 currentTicket() const;
    void tell(const QString &title, const QString &message, QWidget *parent = nullptr) const;

    ReplayStore &m_store;
    MainWindow &m_window;
    bool m_readOnly;
    const RoleLimits &m_limits;
    QMenu *m_menu;
    std::function<QString(QWidget *, const QString &)> m_chooseSave;
    std::function<QString(QWidget *)> m_chooseOpen;
};

} // namespace verity
