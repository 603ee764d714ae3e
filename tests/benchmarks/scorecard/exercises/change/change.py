def find_fewest_coins(coins, target):
    pass
