// The printed finance report as HTML for QTextDocument (print/financepdf paints it).

#include "financehtml.h"

#include "domain/displaytext.h"
#include "domain/money.h"
#include "finance/payoutrecovery.h"

#include <algorithm>

namespace verity {

namespace {

QString markText(const QHash<QString, PayoutMark> &marks, const QString &key)
{
    const auto found = marks.constFind(key);
    if (found == marks.constEnd())
        return QStringLiteral("none");
    return QStringLiteral("%1 by %2, %3")
            .arg(recoveryStateText(found->state), found->operatorName, formatUtcTime(found->at));
}

// Every value passes through here on its way into the HTML: transcript and provider text is
// data, never markup.
QString cell(const QString &text, bool number = false)
{
    return (number ? QStringLiteral("<td align=\"right\">") : QStringLiteral("<td>")) + text.toHtmlEscaped()
            + QStringLiteral("</td>");
}

// Ids (tickets, calls, refunds, accounts) are copied from the report into other systems: they
// are never wrapped, so the table gives their column the room they need. Text between two ids
// may wrap.
QString unbroken(const QString &id)
{
    return id.isEmpty()
            ? QString()
            : QStringLiteral("<span style=\"white-space: nowrap\">%1</span>").arg(id.toHtmlEscaped());
}

// "T-1, T-2": the list may wrap after a comma, never inside an id.
QString unbrokenList(const QStringList &ids)
{
    QStringList html;
    for (const QString &id : ids)
        html << unbroken(id);
    return html.join(QStringLiteral(", "));
}

// A cell of HTML made here: each value in it has been through unbroken() or toHtmlEscaped().
QString htmlCell(const QString &html)
{
    return QStringLiteral("<td>") + html + QStringLiteral("</td>");
}

QString headerRow(const QStringList &names)
{
    QString html = QStringLiteral("<thead><tr>");
    for (const QString &name : names)
        html += QStringLiteral("<th align=\"left\" bgcolor=\"#e8e8e8\">") + name.toHtmlEscaped()
                + QStringLiteral("</th>");
    return html + QStringLiteral("</tr></thead>\n");
}

const QString tableOpen =
        QStringLiteral("<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\" width=\"100%\" "
                       "style=\"border-collapse: collapse; border-color: #999999\">\n");

QString totalsHtml(const ReconTotals &totals, const QString &currency)
{
    QString html = tableOpen
            + headerRow({QStringLiteral("Category"), QStringLiteral("Rows"), QStringLiteral("Ledger total"),
                         QStringLiteral("Provider total")});
    for (int i = 0; i < reconCategoryCount; ++i) {
        const auto index = std::size_t(i);
        html += QStringLiteral("<tr>") + cell(reconCategoryText(ReconCategory(i)))
                + cell(QString::number(totals.count[index]), true)
                + cell(formatMoney(totals.ledgerCents[index], currency), true)
                + cell(formatMoney(totals.providerCents[index], currency), true) + QStringLiteral("</tr>\n");
    }
    return html + QStringLiteral("</table>\n");
}

// The provider's balance less Verity's; a dash when one of them is not known.
QString balanceDifferenceText(const SellerReconciliation &seller)
{
    if (!seller.balanceDifference)
        return QStringLiteral("—");
    return formatDifference(seller.balanceDifference->cents, seller.currency);
}

// The seller's name, and under it its id in a line of its own that never wraps: a hyphen in
// an id is no place to break it, and a span's nowrap does not hold in a table's cell.
QString sellerNameAndId(const SellerReconciliation &seller)
{
    const QString id =
            QStringLiteral("<p style=\"white-space: nowrap; margin-top: 0; margin-bottom: 0\">%1</p>");
    if (seller.sellerName.isEmpty())
        return id.arg(seller.sellerId.toHtmlEscaped());
    return seller.sellerName.toHtmlEscaped() + id.arg(u'(' + seller.sellerId.toHtmlEscaped() + u')');
}

QString sellersHtml(const QList<SellerReconciliation> &sellers)
{
    QStringList names{QStringLiteral("Seller")};
    for (int i = 0; i < reconCategoryCount; ++i)
        names << reconCategoryText(ReconCategory(i));
    names << QStringLiteral("Ledger total") << QStringLiteral("Provider total")
          << QStringLiteral("Verity's balance") << QStringLiteral("Provider's balance")
          << QStringLiteral("Balance difference");
    QString html = tableOpen + headerRow(names);
    for (const SellerReconciliation &seller : sellers) {
        qint64 ledger = 0;
        qint64 provider = 0;
        html += QStringLiteral("<tr>") + htmlCell(sellerNameAndId(seller));
        for (std::size_t i = 0; i < std::size_t(reconCategoryCount); ++i) {
            html += cell(QString::number(seller.totals.count[i]), true);
            ledger += seller.totals.ledgerCents[i];
            provider += seller.totals.providerCents[i];
        }
        html += cell(formatMoney(ledger, seller.currency), true)
                + cell(formatMoney(provider, seller.currency), true)
                + cell(seller.verityBalanceCents ? formatMoney(*seller.verityBalanceCents, seller.currency)
                                                 : QStringLiteral("not reported"),
                       true)
                + cell(seller.providerBalanceCents
                               ? formatMoney(*seller.providerBalanceCents, seller.currency)
                               : QStringLiteral("not fetched"),
                       true)
                + cell(balanceDifferenceText(seller), true) + QStringLiteral("</tr>\n");
    }
    // Two balances of different moments: what they differ by is not a mismatch of itself.
    return html + QStringLiteral("</table>\n")
            + QStringLiteral("<p>Verity's balance is the latest a transcript stated, as of its own date (the "
                             "console's Sellers tab shows it); the provider's is its balance when it was "
                             "fetched. Their difference is what moved between those two moments: the next "
                             "table lists, for each seller, the refunds of this period that make it up, and "
                             "what no row of the period explains.</p>\n");
}

// "T-1 / c3, refund re_2" with each id whole, or the movement's id.
QString partReferenceHtml(const Reconciliation &reconciliation, const BalanceDifferencePart &part)
{
    if (!part.isRow())
        return unbroken(part.movement.id);
    const ReconRow &row = reconciliation.rows.at(part.row);
    QString html = unbroken(row.ticketExtId);
    if (!row.callExtId.isEmpty())
        html += QStringLiteral(" / ") + unbroken(row.callExtId);
    const QString refund = row.provider ? row.provider->id : row.ledger->refundId;
    if (refund.isEmpty())
        return html;
    return html + (html.isEmpty() ? QString() : QStringLiteral(", ")) + QStringLiteral("refund ")
            + unbroken(refund);
}

// One seller's difference: both balances and their moments, each part, and what is left.
QString sellerDifferenceHtml(const Reconciliation &reconciliation, const SellerReconciliation &seller)
{
    const BalanceDifference &difference = *seller.balanceDifference;
    const QString &currency = seller.currency;
    const QString name = seller.sellerName.isEmpty()
            ? unbroken(seller.sellerId)
            : seller.sellerName.toHtmlEscaped() + QStringLiteral(" (") + unbroken(seller.sellerId) + u')';
    const QString balances =
            QStringLiteral("Verity's balance %1 as of %2; the provider's %3, read %4")
                    .arg(formatMoney(*seller.verityBalanceCents, currency),
                         seller.verityBalanceAsOf > 0 ? formatUtcTime(seller.verityBalanceAsOf)
                                                      : QStringLiteral("an unknown moment"),
                         formatMoney(*seller.providerBalanceCents, currency),
                         formatUtcTime(seller.providerBalanceAt));
    QString html = QStringLiteral("<tr><td colspan=\"4\"><b>") + name + QStringLiteral("</b>: ")
            + balances.toHtmlEscaped() + QStringLiteral("</td>")
            + cell(formatDifference(difference.cents, currency), true) + QStringLiteral("</tr>\n");
    for (const BalanceDifferencePart &part : difference.parts)
        html += QStringLiteral("<tr>") + cell(differencePartKind(reconciliation, part))
                + htmlCell(partReferenceHtml(reconciliation, part)) + cell(formatUtcTime(part.at))
                + cell(differenceCauseText(part.cause)) + cell(formatDifference(part.cents, currency), true)
                + QStringLiteral("</tr>\n");
    if (difference.unexplainedCents() != 0)
        html += QStringLiteral("<tr>") + cell(QStringLiteral("Not explained by this period's rows"))
                + QStringLiteral("<td colspan=\"3\">") + difference.unexplainedWhy.toHtmlEscaped()
                + QStringLiteral("</td>")
                + cell(formatDifference(difference.unexplainedCents(), currency), true)
                + QStringLiteral("</tr>\n");
    return html;
}

// What makes up each seller's balance difference; sellers whose balances agree, with nothing
// moved after Verity's, are left out.
QString differencesHtml(const Reconciliation &reconciliation, qsizetype shown)
{
    if (shown == 0)
        return QStringLiteral(
                "<p>No seller's balances differ, or no seller has both balances (the provider's "
                "come with a fetch from its API, not with an export).</p>\n");
    QString html =
            QStringLiteral("<p>The provider's balance less Verity's, and what makes it up: each refund or "
                           "other movement made after Verity's balance was stated, and the rows not "
                           "matched that Verity's balance leaves out when their amounts account for the "
                           "rest to the cent. What no row explains is said, with why.</p>\n")
            + tableOpen
            + headerRow({QStringLiteral("Part"), QStringLiteral("Ticket / call, refund"),
                         QStringLiteral("Made (UTC)"), QStringLiteral("Why a part"),
                         QStringLiteral("Amount")});
    for (const SellerReconciliation &seller : reconciliation.sellers) {
        if (seller.balanceDifference && !seller.balanceDifference->isNil())
            html += sellerDifferenceHtml(reconciliation, seller);
    }
    return html + QStringLiteral("</table>\n");
}

QString unmatchedHtml(const QList<ReconRow> &rows)
{
    QString html = tableOpen
            + headerRow({QStringLiteral("Category"), QStringLiteral("Ticket / call"),
                         QStringLiteral("Refund id"), QStringLiteral("Ledger"), QStringLiteral("Provider"),
                         QStringLiteral("Note")});
    for (const ReconRow &row : rows) {
        if (row.category == ReconCategory::Matched && !row.paidTwice)
            continue;
        const QString refund = row.provider ? row.provider->id
                : row.ledger                ? row.ledger->refundId
                                            : QString();
        html += QStringLiteral("<tr>") + cell(reconRowCategoryText(row))
                + htmlCell(row.callExtId.isEmpty() ? unbroken(row.ticketExtId)
                                                   : unbroken(row.ticketExtId) + QStringLiteral(" / ")
                                           + unbroken(row.callExtId))
                + htmlCell(unbroken(refund))
                + cell(row.ledger ? formatMoney(row.ledger->amountCents, row.currency) : QStringLiteral("-"),
                       true)
                + cell(row.provider ? formatMoney(row.provider->amountCents, row.currency)
                                    : QStringLiteral("-"),
                       true)
                + cell(row.note) + QStringLiteral("</tr>\n");
    }
    return html + QStringLiteral("</table>\n");
}

QString duplicatesHtml(const QList<DuplicatePayout> &duplicates, const QHash<QString, PayoutMark> &marks)
{
    QString html = tableOpen
            + headerRow({QStringLiteral("Tickets"), QStringLiteral("Seller"), QStringLiteral("Refunds"),
                         QStringLiteral("Amount at risk"), QStringLiteral("Time between"),
                         QStringLiteral("Basis"), QStringLiteral("Recovery")});
    for (const DuplicatePayout &duplicate : duplicates) {
        html += QStringLiteral("<tr>") + htmlCell(unbrokenList(duplicate.ticketExtIds()))
                + cell(duplicate.sellerName.isEmpty() ? duplicate.sellerId : duplicate.sellerName)
                + cell(QString::number(duplicate.events.size()), true)
                + cell(formatMoney(duplicate.amountAtRiskCents, duplicate.currency), true)
                + cell(spanText(duplicate.spanMs))
                + cell(duplicateBasisText(duplicate.basis)
                       + (duplicate.confirmedAtProvider ? QStringLiteral(", confirmed at the provider")
                                                        : QString()))
                + cell(markText(marks, duplicate.key)) + QStringLiteral("</tr>\n");
    }
    return html + QStringLiteral("</table>\n");
}

} // namespace

QString financeHtml(const Reconciliation &reconciliation, const QList<DuplicatePayout> &duplicates,
                    const QList<PayoutMark> &marks)
{
    const auto escaped = [](const QString &text) { return text.toHtmlEscaped(); };
    // Rows not matched, and matched ones of an intent the provider paid twice.
    const qsizetype unmatched =
            std::count_if(reconciliation.rows.cbegin(), reconciliation.rows.cend(), [](const ReconRow &row) {
                return row.category != ReconCategory::Matched || row.paidTwice;
            });
    const qsizetype differing =
            std::count_if(reconciliation.sellers.cbegin(), reconciliation.sellers.cend(),
                          [](const SellerReconciliation &seller) {
                              return seller.balanceDifference && !seller.balanceDifference->isNil();
                          });
    // The title and period head every page (see paintPages).
    QString html = QStringLiteral("<html><body>\n<p>Period: %1<br/>Source: %2<br/>Generated: %3</p>\n")
                           .arg(escaped(periodText(reconciliation.period)), escaped(reconciliation.source),
                                escaped(formatUtcTime(reconciliation.generatedAt)));
    html += QStringLiteral("<h2>Totals</h2>\n") + totalsHtml(reconciliation.totals, reconciliation.currency);
    html += QStringLiteral("<h2>Sellers</h2>\n") + sellersHtml(reconciliation.sellers);
    html += QStringLiteral("<h2>Balance differences (%1)</h2>\n").arg(differing)
            + differencesHtml(reconciliation, differing);
    html += QStringLiteral("<h2>Rows not matched, or paid twice (%1)</h2>\n").arg(unmatched);
    html += unmatched == 0 ? QStringLiteral("<p>Every row is matched, and no intent was paid twice.</p>\n")
                           : unmatchedHtml(reconciliation.rows);
    html += QStringLiteral("<h2>Duplicate payouts (%1)</h2>\n").arg(duplicates.size());
    html += duplicates.isEmpty() ? QStringLiteral("<p>None found.</p>\n")
                                 : duplicatesHtml(duplicates, currentMarks(marks));
    return html + QStringLiteral("</body></html>\n");
}

} // namespace verity
