#include "sellerdifferencebar.h"

#include "accessibletext.h"
#include "domain/displaytext.h"
#include "domain/money.h"
#include "finance/reconciliation.h"
#include "plaintextlabel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>

#include <algorithm>

namespace verity {

namespace {

QString nameOf(const SellerReconciliation &seller)
{
    return seller.sellerName.isEmpty() ? seller.sellerId : seller.sellerName;
}

bool differs(const SellerReconciliation &seller)
{
    return seller.balanceDifference && !seller.balanceDifference->isNil();
}

// "T-20260403-0236 / c3, refund re_… (Provider only, made after Verity's balance was stated:
// -$59.00)", each part, the first few.
QString partsOf(const Reconciliation &reconciliation, const SellerReconciliation &seller)
{
    constexpr qsizetype listed = 6;
    const QList<BalanceDifferencePart> &parts = seller.balanceDifference->parts;
    QStringList texts;
    for (qsizetype i = 0; i < parts.size() && i < listed; ++i)
        texts << SellerDifferenceBar::tr("%1 (%2, %3: %4)")
                         .arg(differencePartReference(reconciliation, parts.at(i)),
                              differencePartKind(reconciliation, parts.at(i)),
                              differenceCauseText(parts.at(i).cause),
                              formatDifference(parts.at(i).cents, seller.currency));
    if (parts.size() > listed)
        texts << SellerDifferenceBar::tr("and %1 more, each with its share under \"Of balance difference\"")
                         .arg(parts.size() - listed);
    return texts.join(QStringLiteral("; "));
}

// Both balances with their moments, and what the difference is made of.
QString differenceOf(const Reconciliation &reconciliation, const SellerReconciliation &seller)
{
    const QString name = nameOf(seller);
    if (!seller.verityBalanceCents)
        return SellerDifferenceBar::tr("No transcript stated a balance for %1.").arg(name);
    const QString verity =
            SellerDifferenceBar::tr("Verity's balance for %1 is %2 as of %3")
                    .arg(name, formatMoney(*seller.verityBalanceCents, seller.currency),
                         seller.verityBalanceAsOf > 0 ? formatUtcTime(seller.verityBalanceAsOf)
                                                      : SellerDifferenceBar::tr("an unknown moment"));
    if (!seller.providerBalanceCents)
        return verity
                + SellerDifferenceBar::tr("; the provider's is not known (it comes with a fetch from the "
                                          "provider's API, not with an export).");
    const QString provider = SellerDifferenceBar::tr("%1; the provider's %2, read %3.")
                                     .arg(verity, formatMoney(*seller.providerBalanceCents, seller.currency),
                                          formatUtcTime(seller.providerBalanceAt));
    if (!differs(seller))
        return provider
                + SellerDifferenceBar::tr(" They agree, and nothing moved after Verity's was stated.");
    const QString parts = seller.balanceDifference->parts.isEmpty()
            ? QString()
            : SellerDifferenceBar::tr(" Made up of: %1.").arg(partsOf(reconciliation, seller));
    return provider + u' ' + SellerDifferenceBar::tr("Difference %1.").arg(differenceSummary(seller)) + parts;
}

} // namespace

SellerDifferenceBar::SellerDifferenceBar(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_seller = new QComboBox(this);
    m_seller->setObjectName(QStringLiteral("sellerFilter"));
    m_seller->setAccessibleDescription(
            tr("Shows one seller's rows and what their balance difference is made of"));
    m_seller->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_seller->setMaximumWidth(360);
    auto *label = new QLabel(tr("Se&ller"), this);
    label->setBuddy(m_seller);
    m_difference = plainTextLabel(QString(), this);
    m_difference->setObjectName(QStringLiteral("sellerDifference"));
    m_difference->setAccessibleDescription(
            tr("The chosen seller's two balances and what their difference is made of"));
    layout->addWidget(label);
    layout->addWidget(m_seller, 0, Qt::AlignTop);
    layout->addWidget(m_difference, 1);
    setReconciliation(std::nullopt);
    connect(m_seller, &QComboBox::currentIndexChanged, this, [this] {
        showDifference();
        emit sellerChosen(sellerId());
    });
}

void SellerDifferenceBar::setReconciliation(const std::optional<Reconciliation> &reconciliation)
{
    const QString chosen = sellerId();
    m_reconciliation = reconciliation;
    {
        const QSignalBlocker quiet(m_seller);
        m_seller->clear();
        m_seller->addItem(tr("All sellers"), QString());
        for (const SellerReconciliation &seller :
             reconciliation ? reconciliation->sellers : QList<SellerReconciliation>()) {
            if (seller.sellerId.isEmpty())
                continue; // a refund no seller can be found for: its row shows under every seller
            const QString text = differs(seller)
                    ? tr("%1 (differs by %2)")
                              .arg(nameOf(seller),
                                   formatDifference(seller.balanceDifference->cents, seller.currency))
                    : nameOf(seller);
            m_seller->addItem(text, seller.sellerId);
        }
        m_seller->setCurrentIndex(qMax(0, m_seller->findData(chosen)));
    }
    m_seller->setEnabled(reconciliation.has_value());
    showDifference();
    if (sellerId() != chosen)
        emit sellerChosen(sellerId());
}

void SellerDifferenceBar::chooseSeller(const QString &sellerId)
{
    const int index = m_seller->findData(sellerId);
    if (index >= 0)
        m_seller->setCurrentIndex(index);
}

QString SellerDifferenceBar::sellerId() const
{
    return m_seller->currentData().toString();
}

QString SellerDifferenceBar::differenceText() const
{
    return m_difference->text();
}

void SellerDifferenceBar::showDifference()
{
    if (!m_reconciliation) {
        m_difference->clear();
        return;
    }
    const QString id = sellerId();
    if (id.isEmpty()) {
        const qsizetype differing =
                std::count_if(m_reconciliation->sellers.cbegin(), m_reconciliation->sellers.cend(), differs);
        const QString choose = tr("choose it to see the rows that make up the difference.");
        m_difference->setText(
                differing == 0 ? QString()
                        : differing == 1
                        ? tr("1 seller's balance differs from the provider's: %1").arg(choose)
                        : tr("%1 sellers' balances differ from the provider's: choose one to see "
                             "the rows that make up its difference.")
                                  .arg(differing));
        return;
    }
    for (const SellerReconciliation &seller : m_reconciliation->sellers) {
        if (seller.sellerId == id) {
            m_difference->setText(differenceOf(*m_reconciliation, seller));
            return;
        }
    }
}

} // namespace verity
