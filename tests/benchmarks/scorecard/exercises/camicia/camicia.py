def simulate_game(player_a, player_b):
    pass
