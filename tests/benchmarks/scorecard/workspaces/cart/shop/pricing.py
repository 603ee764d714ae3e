def apply_discount(amount, percent):
    return round(amount * (100 - percent) / 100, 2)
