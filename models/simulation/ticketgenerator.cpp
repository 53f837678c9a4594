#include "ticketgenerator.h"

#include "modelpolicy.h"
#include "seededrandom.h"

#include <QDateTime>

namespace verity {

namespace {

struct CatalogItem
{
    const char *id;
    const char *title;
};

struct SellerKind
{
    const char *trade;
    QList<CatalogItem> items;
};

const QList<SellerKind> &sellerKinds()
{
    static const QList<SellerKind> kinds = {
            {"Furniture",
             {{"OAK-4S", "4-shelf oak shelving unit"},
              {"PINE-BS", "Pine bedside table"},
              {"ASH-STL", "Ash bar stool"}}},
            {"Ceramics",
             {{"SPK-MUG4", "Set of 4 speckled stoneware mugs"},
              {"GLZ-BWL", "Glazed serving bowl"},
              {"TPT-2L", "Two-litre teapot"}}},
            {"Lighting",
             {{"BRS-LMP", "Brass desk lamp"},
              {"LIN-SHD", "Linen lampshade"},
              {"PND-GLS", "Glass pendant light"}}},
            {"Textiles",
             {{"WOL-THR", "Wool throw"},
              {"LIN-DUV", "Linen duvet cover"},
              {"JUT-RUG", "Jute rug, 120 x 180"}}},
            {"Kitchenware",
             {{"CST-PAN", "Cast-iron skillet"},
              {"OAK-BRD", "Oak chopping board"},
              {"CPR-KTL", "Copper kettle"}}},
            {"Garden",
             {{"TER-POT", "Terracotta planter"},
              {"TEA-BNC", "Teak garden bench"},
              {"ZNC-CAN", "Zinc watering can"}}},
    };
    return kinds;
}

const QStringList sellerNames = {QStringLiteral("Ashcombe"),     QStringLiteral("Saltmarsh"),
                                 QStringLiteral("Harbour Lane"), QStringLiteral("Fernhill"),
                                 QStringLiteral("Greywater"),    QStringLiteral("Millbrook"),
                                 QStringLiteral("Larkspur"),     QStringLiteral("Northgate"),
                                 QStringLiteral("Oakden"),       QStringLiteral("Penhallow")};
const QStringList firstNames = {
        QStringLiteral("Dana"),  QStringLiteral("Marcus"), QStringLiteral("Priya"), QStringLiteral("Tomasz"),
        QStringLiteral("Aisha"), QStringLiteral("Eleni"),  QStringLiteral("Kofi"),  QStringLiteral("Ingrid"),
        QStringLiteral("Ravi"),  QStringLiteral("Sofia"),  QStringLiteral("Liam"),  QStringLiteral("Mei"),
        QStringLiteral("Oren"),  QStringLiteral("Nadia"),  QStringLiteral("Hugo"),  QStringLiteral("Yara")};
const QStringList lastNames = {
        QStringLiteral("Whitfield"), QStringLiteral("Oyelaran"),  QStringLiteral("Raman"),
        QStringLiteral("Kowalski"),  QStringLiteral("Haddad"),    QStringLiteral("Petrakis"),
        QStringLiteral("Mensah"),    QStringLiteral("Lindqvist"), QStringLiteral("Iyer"),
        QStringLiteral("Moreau"),    QStringLiteral("Brennan"),   QStringLiteral("Chen"),
        QStringLiteral("Adler"),     QStringLiteral("Karimi"),    QStringLiteral("Duval"),
        QStringLiteral("Okafor")};
const QStringList damages = {
        QStringLiteral("arrived with a crack right through it, and the box was crushed at one corner"),
        QStringLiteral("came broken in the box; there was hardly any padding"),
        QStringLiteral("arrived scratched and dented, as if the parcel had been dropped"),
        QStringLiteral("was damaged in transit: the packaging was torn open")};

constexpr qint64 checkoutMultiple = ModelPolicy::maxCallsAfterFailure;

QString slug(const QString &name)
{
    QString text = name.toLower();
    text.replace(u' ', u'-');
    return text;
}

} // namespace

GeneratedTickets generateTickets(const TicketGeneration &generation)
{
    GeneratedTickets run;
    const int count = qMax(0, generation.count);
    const int sellerCount = qMax(1, (count + 4) / 5);
    const QString suffix = generation.idSuffix.isEmpty() ? QString() : u'-' + generation.idSuffix;
    const QList<SellerKind> &kinds = sellerKinds();

    for (int i = 0; i < sellerCount; ++i) {
        const int name = i % int(sellerNames.size());
        const int kind = (i / int(sellerNames.size())) % int(kinds.size());
        const int round = i / int(sellerNames.size() * kinds.size());
        SimSeller seller;
        seller.name = sellerNames.at(name) + u' ' + QString::fromLatin1(kinds.at(kind).trade)
                + (round > 0 ? QStringLiteral(" %1").arg(round + 1) : QString());
        seller.id = slug(seller.name) + suffix;
        run.sellers.append(seller);
    }

    const qint64 start = QDateTime(QDate(2026, 3, 2), QTime(8, 0), Qt::UTC).toMSecsSinceEpoch();
    for (SimSeller &seller : run.sellers)
        seller.balanceAsOf = start;
    for (int i = 0; i < count; ++i) {
        QRandomGenerator random = seededGenerator(generation.seed, RandomStream::Tickets, quint32(i));
        SimTicket ticket;
        ticket.index = i;
        const QString number = QStringLiteral("%1").arg(i + 1, 5, 10, QLatin1Char('0'));
        ticket.ticketId = generation.ticketPrefix + u'-' + number;
        ticket.openedAt = start + qint64(i) * 240'000 + qint64(random.bounded(200)) * 1000;
        ticket.sellerIndex = int(random.bounded(sellerCount));
        const int kind = (ticket.sellerIndex / int(sellerNames.size())) % int(kinds.size());
        const CatalogItem &item =
                kinds.at(kind).items.at(int(random.bounded(int(kinds.at(kind).items.size()))));
        ticket.itemId = QString::fromLatin1(item.id);
        ticket.itemTitle = QString::fromLatin1(item.title);
        ticket.amountCents = 500 + qint64(random.bounded(290)) * 50; // $5.00 to $149.50
        ticket.paymentCents = ticket.amountCents * checkoutMultiple;
        const QString first = firstNames.at(int(random.bounded(int(firstNames.size()))));
        const QString last = lastNames.at(int(random.bounded(int(lastNames.size()))));
        ticket.customerName = first + u' ' + last;
        ticket.customerEmail = first.toLower() + u'.' + last.toLower() + QStringLiteral("@example.com");
        const QString damage = damages.at(int(random.bounded(int(damages.size()))));
        ticket.subject = ticket.itemTitle + QStringLiteral(" arrived damaged");
        ticket.customerText = QStringLiteral("My %1 %2. I'd like my money back, not a replacement.")
                                      .arg(ticket.itemTitle.toLower(), damage);
        ticket.orderId = QStringLiteral("SO-%1-%2").arg(generation.seed).arg(number) + suffix;
        ticket.paymentIntent = QStringLiteral("pi_") + ticket.orderId;
        run.tickets.append(ticket);
    }

    // Opening balances: what the tickets legitimately take, plus the seller's margin.
    QList<qint64> owed(sellerCount, 0);
    for (const SimTicket &ticket : std::as_const(run.tickets))
        owed[ticket.sellerIndex] += ticket.amountCents;
    for (int i = 0; i < sellerCount; ++i) {
        QRandomGenerator random = seededGenerator(generation.seed, RandomStream::Sellers, quint32(i));
        run.sellers[i].openingBalanceCents = owed.at(i) + 100 + qint64(random.bounded(150)) * 100;
    }
    for (SimTicket &ticket : run.tickets)
        ticket.seller = run.sellers.at(ticket.sellerIndex);
    return run;
}

} // namespace verity
