#include "largeticket.h"

#include "benchmemory.h"
#include "mainwindow.h"
#include "store/store.h"
#include "store/storefactory.h"
#include "ticketview.h"
#include "windowprobe.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTextStream>

namespace verity::bench {

bool writeLargeTicket(const QString &file, int messageMb)
{
    QFile out(file);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    // Words, not one repeated letter: text a layout would have to break into lines.
    const QByteArray words =
            "The shelf arrived cracked along the left side panel and the order was late again. ";
    QByteArray message;
    message.reserve(qsizetype(messageMb) * 1000 * 1000 + words.size());
    while (message.size() < qsizetype(messageMb) * 1000 * 1000)
        message += words;
    const QByteArray result = "{\"status\":\"ok\",\"log\":\"" + message.left(message.size() / 10) + "\"}";
    QByteArray escapedResult = result;
    escapedResult.replace("\"", "\\\"");
    out.write(
            "{\"id\":\"LARGE-1\",\"messages\":[{\"role\":\"user\",\"content\":\"" + message
            + "\"},{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":"
              "{\"name\":\"get_order\",\"arguments\":\"{\\\"order_id\\\":\\\"SU-1\\\"}\"}}]},"
              "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\""
            + escapedResult + "\"}]}\n");
    return out.error() == QFileDevice::NoError;
}

int runLargeTicketProbe(int argc, char **argv, const QString &database)
{
    const ProbeHome home;
    QApplication app(argc, argv);
    QTextStream out(stdout);
    Expected<std::unique_ptr<Store>> store = openStore(database);
    if (!store) {
        out << "error " << store.message() << '\n';
        return 2;
    }
    Expected<std::optional<qint64>> ticket = (*store)->ticketIdByExtId(QStringLiteral("LARGE-1"));
    if (!ticket || !*ticket) {
        out << "error the large ticket is not in " << database << '\n';
        return 2;
    }
    MainWindow window(**store, database, RegistrySource{});
    window.resize(1280, 800);
    window.show();
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
    const long before = peakResidentKb();
    QElapsedTimer timer;
    timer.start();
    window.openTicket(**ticket);
    QApplication::processEvents();
    window.ticketView()->repaint();
    out << "large_ticket_open_ms " << double(timer.nsecsElapsed()) / 1e6 << '\n';
    out << "large_ticket_extra_mb " << double(peakResidentKb() - before) / 1024.0 << '\n';
    return 0;
}

} // namespace verity::bench
