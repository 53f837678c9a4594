#include "windowprobe.h"

#include "benchmemory.h"
#include "itemmodels/escalationqueuemodel.h"
#include "itemmodels/ticketqueuemodel.h"
#include "mainwindow.h"
#include "store/store.h"
#include "store/storefactory.h"
#include "ticketview.h"

#include <QAbstractButton>
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QLineEdit>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>

namespace verity::bench {

namespace {

class Probe
{
public:
    explicit Probe(QTextStream &out)
        : m_out(out)
    {}

    // Times `action` and the synchronous repaint of `shown`, the widget that shows its result.
    template<typename Action>
    void time(const char *name, QWidget *shown, Action action)
    {
        settle();
        QElapsedTimer timer;
        timer.start();
        action();
        shown->repaint();
        figure(name, double(timer.nsecsElapsed()) / 1e6);
    }

    // Between two actions a person looks at the screen: the window is left idle for a moment,
    // as it would be, so that work it does when idle (the queue's walk) can run. Not timed.
    static void settle(int ms = 300)
    {
        QEventLoop loop;
        QTimer::singleShot(ms, &loop, &QEventLoop::quit);
        loop.exec();
    }

    void figure(const char *name, double value)
    {
        m_out << name << ' ' << QString::number(value, 'f', 2) << '\n';
        m_out.flush();
    }

private:
    QTextStream &m_out;
};

} // namespace

int runWindowProbe(int argc, char **argv, const QString &database, const QString &searchOrder)
{
    const ProbeHome home;
    QApplication app(argc, argv);
    QTextStream out(stdout);
    Probe probe(out);

    QElapsedTimer opening;
    opening.start();
    Expected<std::unique_ptr<Store>> store = openStore(database);
    if (!store) {
        out << "error " << store.message() << '\n';
        return 2;
    }
    const double storeOpenedMs = double(opening.nsecsElapsed()) / 1e6;
    MainWindow window(**store, database, RegistrySource{});
    const double windowBuiltMs = double(opening.nsecsElapsed()) / 1e6;
    window.resize(1600, 1000);
    window.show();
    QApplication::processEvents();
    auto *queue = window.findChild<QTableView *>(QStringLiteral("ticketTable"));
    auto *escalations = window.findChild<QTableView *>(QStringLiteral("escalationTable"));
    if (!queue || !escalations) {
        out << "error the window has no ticket or escalation table\n";
        return 2;
    }
    queue->viewport()->repaint();
    probe.figure("open_to_first_page_ms", double(opening.nsecsElapsed()) / 1e6);
    // Where the opening went: the file, the window's models and widgets, then the first paint.
    probe.figure("open_store_ms", storeOpenedMs);
    probe.figure("open_window_built_ms", windowBuiltMs - storeOpenedMs);
    auto *model = qobject_cast<TicketQueueModel *>(queue->model());
    probe.figure("queue_rows", double(model->totalCount()));
    // How long the idle walk along the queue takes to place its anchors, in slices between
    // events: until it ends, a deep jump is read from the nearer end of the queue.
    QElapsedTimer walking;
    walking.start();
    while (!model->anchorsWalked() && walking.elapsed() < 60000)
        QApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    probe.figure("queue_walk_ms", double(walking.nsecsElapsed()) / 1e6);

    const auto filter = [&](TicketFilter which) {
        return [&window, which] {
            window.findChild<QAbstractButton *>(QStringLiteral("filter_%1").arg(int(which)))->click();
        };
    };
    probe.time("filter_needs_attention_ms", queue->viewport(), filter(TicketFilter::NeedsAttention));
    probe.figure("needs_attention_rows", double(model->totalCount()));
    probe.time("filter_unknown_ms", queue->viewport(), filter(TicketFilter::Unknown));
    probe.figure("unknown_rows", double(model->totalCount()));
    probe.time("filter_repeated_intent_ms", queue->viewport(), filter(TicketFilter::RepeatedIntent));
    probe.figure("repeated_intent_rows", double(model->totalCount()));
    probe.time("filter_all_ms", queue->viewport(), filter(TicketFilter::All));

    auto *search = window.findChild<QLineEdit *>(QStringLiteral("ticketSearch"));
    probe.time("search_order_ms", queue->viewport(), [&] {
        search->setText(searchOrder);
        emit search->returnPressed();
    });
    probe.figure("search_rows", double(model->totalCount()));
    // A prefix many tickets share: one seller's name, as a person starts to type it.
    probe.time("search_seller_ms", queue->viewport(), [&] {
        search->setText(QStringLiteral("Ashcombe"));
        emit search->returnPressed();
    });
    probe.figure("search_seller_rows", double(model->totalCount()));
    // Within the search's matches: the middle is the farthest from anything already read.
    probe.time("search_seller_middle_ms", queue->viewport(), [&] {
        queue->scrollTo(model->index(int(model->totalCount() / 2), TicketQueueModel::TicketColumn),
                        QAbstractItemView::PositionAtCenter);
    });
    probe.time("search_seller_end_ms", queue->viewport(), [&] { queue->scrollToBottom(); });
    // The seller's tickets that need attention: a filter within the search, then back.
    probe.time("search_seller_attention_ms", queue->viewport(), filter(TicketFilter::NeedsAttention));
    probe.figure("search_seller_attention_rows", double(model->totalCount()));
    probe.time("search_seller_all_ms", queue->viewport(), filter(TicketFilter::All));
    probe.time("search_cleared_ms", queue->viewport(), [&] {
        search->clear();
        emit search->returnPressed();
    });

    probe.time("jump_middle_ms", queue->viewport(), [&] {
        queue->scrollTo(model->index(int(model->totalCount() / 2), TicketQueueModel::TicketColumn),
                        QAbstractItemView::PositionAtCenter);
    });
    probe.time("jump_end_ms", queue->viewport(), [&] { queue->scrollToBottom(); });
    probe.time("open_last_ticket_ms", window.ticketView(), [&] {
        queue->setCurrentIndex(model->index(int(model->totalCount() - 1), TicketQueueModel::TicketColumn));
    });

    auto *escalationModel = qobject_cast<EscalationQueueModel *>(escalations->model());
    probe.time("escalations_ms", escalations->viewport(), [&] { escalationModel->refresh(); });
    probe.figure("escalation_rows", double(escalationModel->totalCount()));
    probe.time("escalations_end_ms", escalations->viewport(), [&] { escalations->scrollToBottom(); });

    probe.figure("rss_peak_mb", double(peakResidentKb()) / 1024.0);
    return 0;
}

} // namespace verity::bench
